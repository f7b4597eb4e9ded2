"""Work and memory of every resampling method, sized from all of its settings together before it runs.

Each option of a command is bounded on its own (:mod:`evalcore.cli.options`), but their product is not:
``bootstrap --simulated --systems 10000 --B 1000000`` has every option within range and asks for
49,995,000 run pairs x 1,000,000 samples. One function per method returns a :class:`Workload`, the
method's work (the number of terms of its innermost loop: a product of runs or run pairs, trials,
metrics, topics and repetitions) and the memory it allocates, and :func:`check` refuses a workload over
the limits below, naming the product, the figures it came from, the limit and what to lower. The
command line, the Python functions of :mod:`evalcore.meta` (at their entry) and the dashboard call the
same functions with the same limits. The formulas, the measured rates behind the limits and the
reasoning are in docs/reliability.md, "Work products".

Memory follows what the code allocates: the methods split their pairs (or trials) into chunks of a fixed
byte budget (``CHUNK_BYTES`` of :mod:`evalcore.meta.bootstrap` and :mod:`evalcore.meta.stability`,
``ROW_BUDGET`` of :mod:`evalcore.meta.swap`, ``BLOCK_CELLS`` of :mod:`evalcore.meta.tukey`), so their work
arrays are bounded per thread whatever the size; what grows is the topic samples (trials x topics), the
per-run means of swap and stability (runs x trials), and the result tables (one row per metric and run
pair).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from numbers import Integral
from typing import Any

__all__ = ["Workload", "MAX_WORK", "MAX_BYTES", "RATES", "PAGE_SECONDS", "check", "check_all", "bootstrap_work",
           "swap_work", "stability_work", "tukey_work", "pairs_work", "method_work", "report_work", "scores_shape",
           "check_call"]

#: Most terms of a method's innermost loop (its :class:`Workload` ``work``), per method: about two hours of
#: one core at the rates of :data:`RATES`, rounded (docs/reliability.md, "Work products"). Far above every
#: use the docs describe (the report on clef2015; 200 runs x B = 10,000 x 7 metrics) and far below the
#: combinations that cannot end.
MAX_WORK: dict[str, float] = {"bootstrap": 5e12, "swap": 1e12, "stability": 3e12, "tukey": 2e11, "pairs": 2e12}
#: Terms per second of one core, per method: the slowest of the rates measured for docs/reliability.md
#: ("Work products"); used only to say in a message about how long a request would take.
RATES: dict[str, float] = {"bootstrap": 5e8, "swap": 1.1e8, "stability": 3e8, "tukey": 3e7, "pairs": 2e8}
#: Seconds of one core (at :data:`RATES`) a dashboard page may ask for in one computation: a page computes
#: while a class waits on the same server process, with a progress bar, so its limit is minutes, not the
#: command line's hours (docs/reliability.md, "Work products").
PAGE_SECONDS = 600.0
#: Most bytes one method's call may allocate (topic samples, means, work arrays, result tables).
MAX_BYTES = 16 << 30

#: What a method's work counts (the terms of its innermost loop), for the message.
UNITS = {"bootstrap": "pair-sample-topic terms", "swap": "pair comparisons and topic sums",
         "stability": "pair comparisons and topic sums", "tukey": "permuted scores",
         "pairs": "pair-sample-topic terms"}

# Bytes per (metric, run pair) of a method's result tables, as built (columns, the concatenation that
# copies them, the sorted curves): measured by tracemalloc, docs/reliability.md "Work products".
_TABLE_BYTES = {"bootstrap": 200, "stability": 140, "tukey": 120, "pairs": 480, "swap": 0}
# Bytes per row of a per-pair table written as JSON (``--output json`` builds one dict per row first).
_JSON_ROW_BYTES = 500
# The work-array budgets of the methods (their modules' CHUNK_BYTES / ROW_BUDGET / BLOCK_CELLS), restated
# here so that sizing a request imports no method module; tests/test_workload.py keeps them equal.
_BOOT_CHUNK, _STAB_CHUNK, _SWAP_ROWS, _PAIRS_CHUNK, _TUKEY_CELLS = 8 << 20, 4 << 20, 2 << 20, 16 << 20, 1 << 22


@dataclass(frozen=True)
class Workload:
    """The size of one request: ``work`` terms of the method's innermost loop (``formula`` says which
    product) and ``bytes`` of memory at its peak."""

    method: str
    work: float
    bytes: float
    formula: str

    @property
    def limit(self) -> float:
        return MAX_WORK[self.method]

    def seconds(self) -> float:
        """About how long on one core (:data:`RATES`)."""
        return self.work / RATES[self.method]


def _n(x: float) -> str:
    return f"{int(x):,}"


def _e(x: float) -> str:
    return f"{x:.1e}".replace("e+0", "e").replace("e+", "e")


def _duration(s: float) -> str:
    for unit, size in (("years", 365 * 86400), ("days", 86400), ("hours", 3600), ("minutes", 60)):
        if s >= 2 * size:
            return f"{s / size:,.0f} {unit}"
    return f"{max(s, 1):.0f} seconds"


def _bytes(b: float) -> str:
    for unit, size in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20)):
        if b >= size:
            return f"{b / size:,.1f} {unit}"
    return f"{b / 1024:,.0f} KiB"


def _plural(n: int, word: str) -> str:
    return f"{_n(n)} {word}{'' if n == 1 else 's'}"


def _runs_pairs(n_runs: int) -> tuple[int, str]:
    P = n_runs * (n_runs - 1) // 2
    return P, f"{_plural(n_runs, 'run')} -> {_plural(P, 'run pair')}"


def _tail(repeats: int, what: str = "repetition") -> str:
    return "" if repeats == 1 else f" x {_plural(repeats, what)}"


def _pair_index_bytes(n_runs: int, P: int) -> int:
    # numpy.triu_indices: an (n_runs, n_runs) bool mask, two int64 index arrays and their intp copies
    return n_runs * n_runs + 32 * P


def _counts_bytes(B: int, c: int, n_topics: int) -> int:
    # topic_counts: the (B, c) samples, their flat index, the int64 bincount and its float64 copy
    return 16 * B * c + 16 * B * n_topics


def _json(json_rows: float) -> float:
    return json_rows * _JSON_ROW_BYTES


def bootstrap_work(n_runs: int, n_topics: int, *, B: int, n_metrics: int, repeats: int = 1, threads: int = 1,
                   json: bool = False) -> Workload:
    """:func:`evalcore.meta.bootstrap_sensitivity`: work = metrics x run pairs x B x topics (the two exact
    products w @ counts and w^2 @ counts of every pair, sample and topic), times ``repeats``.

    >>> w = bootstrap_work(30, 50, B=1000, n_metrics=7)
    >>> int(w.work) == 7 * (30 * 29 // 2) * 1000 * 50
    True
    """
    P, runs = _runs_pairs(n_runs)
    work = float(repeats) * n_metrics * P * B * n_topics
    per_row = 8 * (6 * B + 3 * n_topics)
    tables = n_metrics * P * _TABLE_BYTES["bootstrap"] + _json(2 * n_metrics * P if json else 0)
    mem = (_counts_bytes(B, n_topics, n_topics) + _pair_index_bytes(n_runs, P)
           + threads * max(_BOOT_CHUNK, per_row) * 2 + tables * (2 if repeats > 1 else 1))
    formula = (f"{runs} x B = {_n(B)} x {_plural(n_metrics, 'metric')} x {_plural(n_topics, 'topic')}"
               f"{_tail(repeats)}")
    return Workload("bootstrap", work, mem, formula)


def swap_work(n_runs: int, n_topics: int, *, B: int, n_metrics: int, subset_size: int | None = None,
              sampling: str = "replacement", repeats: int = 1, threads: int = 1) -> Workload:
    """:func:`evalcore.meta.swap_method`: work = metrics x B x (run pairs + 2 x runs x c), the comparisons
    of every pair in every trial and the sums of every run over both topic samples of size c, times
    ``repeats``. Memory: every run's means over both samples, kept for the pairs (4 x runs x B floats
    per metric, and the temporaries of their exact sums).

    >>> w = swap_work(30, 50, B=1000, n_metrics=7)
    >>> int(w.work) == 7 * 1000 * (30 * 29 // 2 + 2 * 30 * 50)
    True
    """
    P, runs = _runs_pairs(n_runs)
    # a c above the topics is refused by the method itself; the formula never counts more than it draws
    c = min(subset_size or (n_topics if sampling == "replacement" else n_topics // 2), n_topics)
    work = float(repeats) * n_metrics * B * (P + 2 * n_runs * c)
    draw = 0 if sampling == "replacement" else 16 * B * n_topics      # a random key and an argsort per trial
    mem = (2 * _counts_bytes(B, c, n_topics) + draw + 40 * n_metrics * n_runs * B
           + threads * max(_SWAP_ROWS, 32 * B) * 2)
    formula = (f"{runs} x B = {_n(B)} x {_plural(n_metrics, 'metric')} (plus 2 x {_plural(n_runs, 'run')} x "
               f"c = {_n(c)} topic sums per trial){_tail(repeats)}")
    return Workload("swap", work, mem, formula)


def stability_work(n_runs: int, n_topics: int, *, B: int, n_metrics: int, n_fuzziness: int = 4,
                   subset_size: int | None = None, replacement: bool = False, repeats: int = 1, threads: int = 1,
                   json: bool = False) -> Workload:
    """:func:`evalcore.meta.stability`: work = metrics x B x (run pairs x fuzziness values + runs x c),
    times ``repeats``. Memory: every run's mean per trial (runs x B floats per metric) and the wins,
    losses and ties of every pair and fuzziness value.

    >>> w = stability_work(30, 50, B=1000, n_metrics=7, n_fuzziness=4)
    >>> int(w.work) == 7 * 1000 * (30 * 29 // 2 * 4 + 30 * 25)
    True
    """
    P, runs = _runs_pairs(n_runs)
    c = min(subset_size or (n_topics if replacement else max(n_topics // 2, 1)), n_topics)
    work = float(repeats) * n_metrics * B * (P * n_fuzziness + n_runs * c)
    draw = 0 if replacement else 16 * B * n_topics
    rows = n_metrics * n_fuzziness * P
    tables = rows * _TABLE_BYTES["stability"] + _json(rows if json else 0)
    mem = (_counts_bytes(B, c, n_topics) + draw + _pair_index_bytes(n_runs, P) + 16 * n_metrics * n_runs * B
           + 24 * rows + threads * max(_STAB_CHUNK, 48 * B) * 2 + tables * (2 if repeats > 1 else 1))
    formula = (f"{runs} x {_plural(n_fuzziness, 'fuzziness value')} x B = {_n(B)} x "
               f"{_plural(n_metrics, 'metric')} (plus {_plural(n_runs, 'run')} x c = {_n(c)} topic sums per "
               f"trial){_tail(repeats)}")
    return Workload("stability", work, mem, formula)


def tukey_work(n_runs: int, n_topics: int, *, B: int, n_metrics: int, repeats: int = 1, threads: int = 1,
               json: bool = False) -> Workload:
    """:func:`evalcore.meta.tukey_hsd`: work = metrics x B x runs x topics (every score permuted and
    averaged in every trial), times ``repeats``. Memory: the permutation blocks (bounded by the module's
    ``BLOCK_CELLS``, at least one trial per thread), B ranges per metric and the pair table.

    >>> w = tukey_work(30, 50, B=5000, n_metrics=7)
    >>> int(w.work) == 7 * 5000 * 30 * 50
    True
    """
    P, _ = _runs_pairs(n_runs)
    cells = n_runs * n_topics
    work = float(repeats) * n_metrics * B * cells
    tables = n_metrics * P * _TABLE_BYTES["tukey"] + _json(n_metrics * P if json else 0)
    mem = (8 * n_metrics * cells + 16 * n_metrics * B + 24 * max(_TUKEY_CELLS, threads * cells)
           + _pair_index_bytes(n_runs, P) + tables * (2 if repeats > 1 else 1))
    formula = (f"{_plural(n_runs, 'run')} x {_plural(n_topics, 'topic')} x B = {_n(B)} x "
               f"{_plural(n_metrics, 'metric')}{_tail(repeats)}")
    return Workload("tukey", work, mem, formula)


def pairs_work(n_runs: int, n_topics: int, *, B: int, n_metrics: int, tests: Sequence[str] = ("t",),
               threads: int = 1, json: bool = False) -> Workload:
    """:func:`evalcore.meta.pair_statistics` (the ``pairs`` and ``compare`` commands): work = metrics x run
    pairs x topics x (1 + B if the bootstrap is asked for + K sign flips if the randomisation test is,
    K = min(B, 2^topics)). Memory: the per-pair columns and tables (one row per metric and pair).

    >>> w = pairs_work(30, 50, B=1000, n_metrics=7, tests=("t", "bootstrap"))
    >>> int(w.work) == 7 * (30 * 29 // 2) * 50 * (1 + 1000)
    True
    """
    P, runs = _runs_pairs(n_runs)
    Bb = B if "bootstrap" in tests else 0
    K = (min(B, 2 ** n_topics) if n_topics < 63 else B) if "randomisation" in tests else 0
    work = float(n_metrics) * P * n_topics * (1 + Bb + K)
    per_row = 8 * (12 * n_topics + 4 * Bb + 2 * K)
    tables = n_metrics * P * _TABLE_BYTES["pairs"] + _json(2 * n_metrics * P if json else 0)
    mem = (_counts_bytes(Bb, n_topics, n_topics) + 24 * K * n_topics + _pair_index_bytes(n_runs, P)
           + threads * max(_PAIRS_CHUNK, per_row) * 2 + tables)
    resampled = [f"B = {_n(Bb)} bootstrap samples"] * bool(Bb) + [f"{_n(K)} sign flips"] * bool(K)
    formula = (f"{runs} x {_plural(n_topics, 'topic')} x {_plural(n_metrics, 'metric')}"
               + (f" x (1 + {' + '.join(resampled)})" if resampled else ""))
    return Workload("pairs", work, mem, formula)


_FUNCTIONS: dict[str, Callable[..., Workload]] = {"bootstrap": bootstrap_work, "swap": swap_work,
                                                  "stability": stability_work, "tukey": tukey_work}


def method_work(method: str, n_runs: int, n_topics: int, *, B: int, n_metrics: int, repeats: int = 1,
                threads: int = 1, **kw) -> Workload:
    """The :class:`Workload` of ``method`` ("bootstrap", "swap", "stability" or "tukey") with the keyword
    arguments of its function (``subset_size``, ``sampling``, ``replacement``, ``fuzziness``) and ``json``
    (the per-pair tables written as JSON); others are ignored."""
    f = _FUNCTIONS[method]
    extra: dict = {"json": bool(kw.get("json"))} if method != "swap" else {}
    if method == "swap":
        extra = {k: kw[k] for k in ("subset_size", "sampling") if kw.get(k) is not None}
    elif method == "stability":
        extra.update({k: kw[k] for k in ("subset_size", "replacement") if kw.get(k) is not None})
        fz = kw.get("fuzziness")
        if fz is not None:
            extra["n_fuzziness"] = 1 if isinstance(fz, (int, float)) else len(fz)
    return f(n_runs, n_topics, B=int(B), n_metrics=n_metrics, repeats=repeats, threads=threads, **extra)


def report_work(n_runs: int, n_topics: int, *, B: int, tukey_B: int, repeats: int, topic_resamples: int,
                topic_B: int, n_metrics: int = 7, n_gain_scores: int = 15, threads: int = 1) -> list[Workload]:
    """The ``report`` command (:func:`evalcore.report.experiment.run_experiment`) on ``n_runs`` runs (after
    its ``top``): one :class:`Workload` per method, each summed over the report's calls of it - swap,
    bootstrap (Table 4's metrics and Table 6's ``n_gain_scores`` gain settings) and Tukey ``repeats``
    times at ``B`` / ``tukey_B`` plus ``topic_resamples`` times at ``topic_B`` (the topic bootstrap),
    stability ``repeats`` times at one fuzziness value."""
    def add(*ws: Workload) -> Workload:
        parts = [w for w in ws if w.work > 0]
        return Workload(parts[0].method, sum(w.work for w in parts), max(w.bytes for w in parts),
                        " + ".join(f"({w.formula})" for w in parts))

    kw: dict[str, Any] = {"threads": threads}
    tb = max(topic_resamples, 1)

    def sampled(w: Workload) -> Workload:          # the topic bootstrap's calls: one per topic sample
        return replace(w, formula=w.formula.replace(" repetitions", " topic samples").replace(" repetition",
                                                                                            " topic sample"))
    out = [
        add(swap_work(n_runs, n_topics, B=B, n_metrics=n_metrics, repeats=repeats, **kw),
            *([sampled(swap_work(n_runs, n_topics, B=topic_B, n_metrics=n_metrics, repeats=tb, **kw))]
              if topic_resamples else [])),
        add(bootstrap_work(n_runs, n_topics, B=B, n_metrics=n_metrics + n_gain_scores, repeats=repeats, **kw),
            *([sampled(bootstrap_work(n_runs, n_topics, B=topic_B, n_metrics=n_metrics, repeats=tb, **kw))]
              if topic_resamples else [])),
        add(tukey_work(n_runs, n_topics, B=tukey_B, n_metrics=n_metrics, repeats=repeats, **kw),
            *([sampled(tukey_work(n_runs, n_topics, B=topic_B, n_metrics=n_metrics, repeats=tb, **kw))]
              if topic_resamples else [])),
        stability_work(n_runs, n_topics, B=B, n_metrics=n_metrics, n_fuzziness=1, repeats=repeats, **kw),
    ]
    return [w for w in out if w.work > 0]


def scores_shape(scores) -> tuple[int, int, int]:
    """(metrics, runs, topics) of ``{metric: (n_runs, n_topics) matrix}``, read from the first matrix's
    shape without copying it; (0, 0, 0) when it has none or the first is not two-dimensional (the method's
    own checks then say what is wrong)."""
    if not isinstance(scores, Mapping) or not scores:
        return 0, 0, 0
    first = next(iter(scores.values()))
    shape = getattr(first, "shape", None)
    if shape is None:
        try:
            shape = (len(first), len(first[0]))
        except (TypeError, IndexError, KeyError):
            return 0, 0, 0
    if len(shape) != 2:
        return 0, 0, 0
    return len(scores), int(shape[0]), int(shape[1])


#: What to lower, said after a refusal when the caller gives no hint of its own (the Python functions).
DEFAULT_HINT = "lower B (or the repetitions), or pass fewer runs or metrics"


def check(w: Workload, hint: str = DEFAULT_HINT, *, what: str | None = None,
          max_seconds: float | None = None, scope: str = "") -> Workload:
    """``w`` if within :data:`MAX_WORK` and :data:`MAX_BYTES`; else ValueError naming the product, the
    figures it came from, the limit and ``hint`` (what to lower). ``what``: the name in front (default
    the method's). ``max_seconds``: a lower limit, that many seconds of one core at :data:`RATES` (the
    dashboard's, :data:`PAGE_SECONDS`), named ``scope`` in the message ("for a page")."""
    name = what or w.method
    limit = MAX_WORK[w.method]
    if max_seconds is not None:
        limit = min(limit, float(max_seconds) * RATES[w.method])
    if w.work > limit:
        raise ValueError(
            f"{name}: {w.formula} = {_e(w.work)} {UNITS[w.method]} (about {_duration(w.seconds())} of one core, "
            f"memory about {_bytes(w.bytes)}); the limit{(' ' + scope) if scope else ''} is {_e(limit)} (about "
            f"{_duration(limit / RATES[w.method])} of one core; docs/reliability.md, \"Work products\"): {hint}")
    if w.bytes > MAX_BYTES:
        raise ValueError(
            f"{name}: {w.formula} needs about {_bytes(w.bytes)} of memory; the limit is {_bytes(MAX_BYTES)} "
            f"(docs/reliability.md, \"Work products\"): {hint}")
    return w


def check_all(ws: Sequence[Workload], hint: str = DEFAULT_HINT, *, what: str | None = None) -> None:
    """:func:`check` every workload (e.g. :func:`report_work`'s), the first one over a limit raising."""
    for w in ws:
        check(w, hint, what=f"{what}, {w.method}" if what else None)


def _count(x) -> bool:
    return isinstance(x, Integral) and not isinstance(x, bool) and int(x) >= 1


def check_call(method: str, scores, *, B, threads=1, repeats=1, hint: str = DEFAULT_HINT, **kw: Any) -> None:
    """At the entry of a method of :mod:`evalcore.meta` (``method``: "bootstrap", "swap", "stability",
    "tukey" or "pairs", whose ``tests`` are then in ``kw``), before anything is drawn or allocated:
    :func:`check` of its workload on ``scores``' shape. Arguments the method itself refuses (a B that is
    not a positive whole number, matrices of other shapes) are left to its own checks."""
    M, R, n = scores_shape(scores)
    if M == 0 or R < 2 or n < 1 or not (_count(B) and _count(repeats) and _count(threads)):
        return
    if method == "pairs":
        check(pairs_work(R, n, B=int(B), n_metrics=M, tests=tuple(kw.get("tests") or ("t",)), threads=int(threads)),
              hint)
    else:
        check(method_work(method, R, n, B=int(B), n_metrics=M, repeats=int(repeats), threads=int(threads), **kw),
              hint)
