"""Meta-evaluation subcommands: ``kendall``, ``swap``, ``bootstrap``, ``stability``, ``tukey``.

:func:`register` adds them to the ``evalcore`` command (``evalcore/cli/__init__.py``)
with the shared data/metric parent parser. Adding a subcommand is one
``add(...)`` call in :func:`register` plus its ``run_*`` function.

Input: the collection the data options name (scored with ``evalcore.score_matrices`` under the metric settings), or
``--scores FILE``, a tidy CSV/TSV with columns run, topic, metric, value
(e.g. ``python -m evalcore evaluate --per-topic --output csv`` output).

The JSON keys are listed in :data:`JSON_HELP` (shown by ``--help``).
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from contextlib import ExitStack

import numpy as np
import pandas as pd

from .. import workload
from ..meta import (
    correlation_matrix,
    read_score_csv,
    subset_runs,
    top_runs,
)
from ..meta.correlation import METHODS
from ..meta.repeat import order_share, repeat
from ..meta.sampling import SAMPLINGS
from ..meta.standardise import STANDARDISATIONS, standardise_scores
from ..registry import policy_matrices
from ..texfmt import visible
from .evaluate import add_topics_option
from .options import (
    MAX_B,
    MAX_COUNT,
    MAX_REPEATS,
    SEED_MAX,
    add_dask_options,
    add_list_option,
    add_metrics_option,
    add_threads_option,
    check_dask_options,
    dask_options_given,
    data_options_parser,
    load_from_args,
    metric_params,
    metrics_of,
    number,
    policy_of,
)

__all__ = ["register", "run_kendall", "run_swap", "run_bootstrap", "run_stability", "run_tukey",
           "DEFAULT_METRICS"]

#: 003's seven metrics, in Table 2's order
DEFAULT_METRICS = ["Q-measure", "AP", "P+-measure", "P-measure", "O-measure", "NWRR", "RR"]

#: The ``--output json`` layout, shown by every subcommand's ``--help`` (a plain
#: string, not the docstring, so ``python -OO`` keeps it).
JSON_HELP = """\
With ``--output json`` (default: tsv) the output is one object:

    command      the subcommand
    collection   the collection name (or the score file)
    runs         run ids used (after --top), in score-matrix order
    n_topics     number of topics
    metrics      metric labels, in order
    settings     every option that shaped the result (B, seed, alpha, sampling, ...); ``dask`` is null
                 in memory, else {scheduler, workers, to_parquet} of --scheduler / --workers / --to-parquet
                 (swap, bootstrap, stability, tukey: the same numbers; with --to-parquet the pairs and
                 curves tables are empty, the pairs being in the Parquet directory)
    <tables>     lists of row objects, one key per table:
      kendall:   matrix (metric, then one key per metric), pairs (metric_a, metric_b, tau, z0, p_value, significant)
      swap:      summary (metric, confidence, abs_diff, max_performance, relative, pct_comparisons,
                 n_comparisons; sorted by pct_comparisons within a confidence),
                 curves (metric, bin, lower, upper, count, swaps, swap_rate)
      bootstrap: summary (metric, alpha, n_significant, n_pairs, pct_significant, estimated_diff,
                 estimated_diff_raw), pairs (metric, run_x, run_y, mean_diff, t, asl, significant),
                 curves (metric, pair_rank, asl)
      stability: summary (metric, fuzziness, error_rate, prop_ties), pairs (metric, fuzziness, run_x, run_y,
                 wins, losses, ties)
      tukey:     summary (metric, alpha, n_significant, n_pairs, pct_significant),
                 pairs (metric, run_x, run_y, mean_diff, p_value, significant)

swap, bootstrap, stability and tukey also take ``--repeats N`` (independent
repetitions with seeds derived from --seed; repetition 1 is the plain --seed
run, see evalcore.meta.repeat) and ``--claim A,B,C`` (an order claim
"A >= B >= C" on the main figure: pct_comparisons at the first confidence for
swap, pct_significant at the first alpha for bootstrap and tukey, error_rate
at the first fuzziness for stability, where the claim is "A <= B"). Their
JSON then adds:
      spread:    (summary keys, figure, mean, sd, min, max, n) over the repetitions
      repeats:   every repetition's summary, with columns repeat and seed first
      claims:    (claim, figure, share, repeats, steps) - share of repetitions in which it held
and the summary/curves/pairs tables are those of repetition 1. ``--output tsv``
prints the spread table by default when --repeats > 1.

NaN (the papers' "-") is ``null`` in JSON and ``-`` in TSV. ``--output tsv``
prints one table (``--table``, default summary; matrix for kendall) with a
header line.
"""


def meta_parent(default_B: int, default_alpha: list[float], tables: list[str], repeats: bool = False
                 ) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(add_help=False)
    g = p.add_argument_group("meta-evaluation")
    add_metrics_option(g, "default: " + " ".join(DEFAULT_METRICS) + "; with --scores: every metric in the file")
    if default_B:
        g.add_argument("--B", type=number("--B", int, 1, MAX_B), default=default_B, metavar="N",
                       help=f"trials / samples (default {default_B}, at most {MAX_B:,})")
        add_threads_option(g)
    else:
        p.set_defaults(B=None, threads=None)
    g.add_argument("--seed", type=number("--seed", int, 0, SEED_MAX), default=0, metavar="N",
                   help="seed of the topic samples / permutations (default 0); same seed, same result")
    add_list_option(g, "--alpha", type=number("--alpha", float, 0, 1, strict=True), default=default_alpha,
                    metavar="A",
                    help="significance level(s) (default " + " ".join(map(str, default_alpha)) + ")")
    g.add_argument("--top", type=number("--top", int, 2, MAX_COUNT), metavar="N",
                   help="keep only the N best runs by --top-by (the papers: 30)")
    g.add_argument("--top-by", default="AP", metavar="KEY",
                   help="metric that ranks runs for --top (default AP, i.e. relaxed AP at --rel-threshold 1)")
    g.add_argument("--scores", metavar="CSV", help="read per-topic scores from a CSV/TSV with columns run, topic, "
                   "metric, value instead of scoring a collection")
    add_standardise_options(g)
    g.add_argument("--output", choices=("tsv", "json"), default="tsv")
    if repeats:
        g.add_argument("--repeats", type=number("--repeats", int, 1, MAX_REPEATS), default=1, metavar="N",
                       help="independent repetitions with seeds derived from --seed (default 1); every summary "
                            "figure then gets its mean, sd and min-max (table 'spread')")
        g.add_argument("--claim", action="append", default=[], metavar="A,B,..",
                       help="an order claim 'A >= B >= ..' between metrics on the main figure; reports the share "
                            "of repetitions in which it held (table 'claims'); repeatable")
        tables = tables + ["spread", "repeats", "claims"]
    g.add_argument("--table", choices=tables, default=None, help="table printed by --output tsv "
                   f"(default {tables[0]}" + (", or spread with --repeats > 1)" if repeats else ")"))
    return p


def register(subparsers, data_parent: argparse.ArgumentParser) -> None:
    """Register kendall, swap, bootstrap, stability and tukey on ``subparsers``."""
    fmt = argparse.RawDescriptionHelpFormatter

    def add(name, help_, desc, B, alpha, tables, func):
        data = data_options_parser()   # a private copy: 'resolve' (for --topics POLICY|N) edits its actions
        sp = subparsers.add_parser(name, parents=[data, meta_parent(B, alpha, tables, name != "kendall")],
                                   help=help_, description=desc, epilog=JSON_HELP, formatter_class=fmt,
                                   conflict_handler="resolve")
        add_topics_option(sp, data)
        sp.set_defaults(func=func, topic_policy=None)
        if B:
            add_dask_options(sp.add_argument_group("Dask (evalcore-ir[dask]; docs/scaling.md)"), parquet=name != "swap")
        return sp

    k = add("kendall", "rank correlation between metrics' system rankings (003 Table 2)",
            "Kendall's tau (tau-b by default; 003 Eq. 8) between the run rankings of every pair of metrics, "
            "with the Eq. 9 normal test.", 0, [0.01], ["matrix", "pairs"], run_kendall)
    k.add_argument("--method", choices=METHODS, default="tau-b", help="correlation (default tau-b)")

    s = add("swap", "swap method: swap rates and sensitivity (003 Table 3, 004 Table 1)",
            "Voorhees/Buckley swap method with disjoint, replacement (003, default) or independent topic "
            "sampling.", 1000, [0.05], ["summary", "curves"], run_swap)
    s.add_argument("--sampling", choices=SAMPLINGS, default="replacement",
                   help="topic sampling (default replacement, c = |Q|)")
    s.add_argument("--subset-size", type=number("--subset-size", int, 1, MAX_COUNT), metavar="C",
                   help="c (default |Q| for replacement, else |Q|//2)")
    s.add_argument("--rule", choices=("003", "004"), default="003",
                   help="003: a swap unless D*D' > 0 (default); 004: sign disagreement or exactly one zero")
    s.add_argument("--bin-width", type=number("--bin-width", float, 0, 1e6, strict=True), default=0.01,
                   help="width of a difference bin (default 0.01)")
    s.add_argument("--bins", type=number("--bins", int, 1, 100_000), default=21,
                   help="number of bins, the last open-ended (default 21)")
    add_list_option(s, "--confidence", type=number("--confidence", float, 0, 1, strict=True),
                    default=[0.95, 0.90, 0.80],
                   help="confidence levels of the summary (default 0.95 0.90 0.80)")

    add("bootstrap", "Bootstrap Sensitivity Method: ASL of every run pair (003 Table 4)",
        "Paired bootstrap test (Studentised t) for every run pair, discriminative power and the Fig. 7 "
        "estimated difference.", 1000, [0.05, 0.01], ["summary", "pairs", "curves"], run_bootstrap)

    st = add("stability", "Buckley/Voorhees stability: error rate vs ties (002)",
             "Error rate and proportion of ties over topic subsets for each fuzziness value.", 1000, [0.05],
             ["summary", "pairs"], run_stability)
    st.add_argument("--subset-size", type=number("--subset-size", int, 1, MAX_COUNT), metavar="C",
                    help="c (default |Q|//2, or |Q| with --replacement)")
    add_list_option(st, "--fuzziness", type=number("--fuzziness", float, 0, 1), default=[0.01, 0.02, 0.05, 0.1],
                    help="fuzziness values f (default 0.01 0.02 0.05 0.1)")
    st.add_argument("--replacement", action="store_true", help="draw the subsets with replacement")

    add("tukey", "randomised Tukey HSD over all run pairs (Sakai 2012)",
        "Permute scores within each topic across runs; a pair is significant if its mean difference is "
        "rarely reached by the permutation range.", 5000, [0.05], ["summary", "pairs"], run_tukey)


# -- --standardise (also pairs and topics, evalcore.cli.stats) -----------------------

def add_standardise_options(group) -> None:
    """``--standardise none|z|cdf|ab`` with ``--std-a``/``--std-b`` (evalcore.meta.standardise)."""
    group.add_argument("--standardise", choices=STANDARDISATIONS, default="none",
                       help="standardise scores per topic over the loaded runs before the meta-evaluation: "
                            "z (Webber et al. 2008), cdf (std-CDF), ab (A z + B, Sakai 2016); default none")
    group.add_argument("--std-a", type=number("--std-a", float, -1e6, 1e6), default=0.15, metavar="A",
                       help="A of --standardise ab (0.15)")
    group.add_argument("--std-b", type=number("--std-b", float, -1e6, 1e6), default=0.5, metavar="B",
                       help="B of --standardise ab (0.5)")


def apply_standardise(args, scores: dict) -> dict:
    """Standardise ``scores`` as the options say (all loaded runs are the standardising runs)."""
    method = getattr(args, "standardise", "none") or "none"
    if method == "none":
        return scores
    return standardise_scores(scores, method, A=args.std_a, B=args.std_b)


def standardise_settings(args) -> dict:
    """The ``--standardise`` settings, as the JSON output records them."""
    m = getattr(args, "standardise", "none")
    return {"standardise": m, "std_a": args.std_a if m == "ab" else None, "std_b": args.std_b if m == "ab" else None}


# -- work products (evalcore.workload; docs/reliability.md, "Work products") -------------
#: What to lower when a command's request is over a limit of :mod:`evalcore.workload`, by command.
WORK_HINTS = {
    "swap": "lower --B or --repeats, keep fewer runs with --top N (or fewer --systems), or give fewer --metrics",
    "bootstrap": "lower --B or --repeats, keep fewer runs with --top N (or fewer --systems), or give fewer --metrics",
    "stability": "lower --B, --repeats or the --fuzziness values, keep fewer runs with --top N (or fewer "
                 "--systems), or give fewer --metrics",
    "tukey": "lower --B or --repeats, keep fewer runs with --top N (or fewer --systems or --topics), or give "
             "fewer --metrics",
    "pairs": "lower --B (with --test bootstrap/randomisation or --ci bootstrap), keep fewer runs with --top N (or "
             "fewer --systems), or give fewer --metrics",
    "compare": "lower --B (with --test bootstrap/randomisation), evaluate fewer runs (or fewer --systems), or give "
               "fewer -m metrics",
}
#: A command estimated to take longer than this (seconds of one core, evalcore.workload.RATES) shows its
#: progress on standard error.
PROGRESS_AFTER_S = 20.0


def pairs_tests(args) -> tuple[str, ...]:
    """The tests ``pairs`` computes: the t-test (for the CI and effect size), --test, and the bootstrap for
    ``--ci bootstrap``."""
    return tuple(dict.fromkeys(["t", args.test] + (["bootstrap"] if args.ci == "bootstrap" else [])))


def command_workloads(args, n_runs: int, n_topics: int, n_metrics: int) -> list[workload.Workload]:
    """The :class:`evalcore.workload.Workload` of this command line on ``n_runs`` runs (after --top),
    ``n_topics`` topics and ``n_metrics`` metrics; [] for a command that resamples nothing (kendall)."""
    from ..meta._parallel import resolve_threads

    cmd = args.command
    if cmd not in WORK_HINTS:
        return []
    dask = dask_options_given(args)
    threads = 1 if dask else resolve_threads(getattr(args, "threads", None), cmd)
    json_out = getattr(args, "output", None) == "json" and getattr(args, "to_parquet", None) is None
    if cmd == "pairs":
        return [workload.pairs_work(n_runs, n_topics, B=args.B, n_metrics=n_metrics, tests=pairs_tests(args),
                                    threads=threads, json=json_out)]
    if cmd == "compare":
        return [workload.pairs_work(n_runs, n_topics, B=args.B, n_metrics=n_metrics, tests=(args.test,),
                                    threads=threads)]
    kw = {"swap": lambda: dict(sampling=args.sampling, subset_size=args.subset_size),
          "stability": lambda: dict(subset_size=args.subset_size, replacement=args.replacement,
                                    fuzziness=args.fuzziness)}.get(cmd, dict)()
    return [workload.method_work(cmd, n_runs, n_topics, B=args.B, n_metrics=n_metrics,
                                 repeats=getattr(args, "repeats", 1), threads=threads, json=json_out, **kw)]


def check_workload(args, n_runs: int, n_topics: int, n_metrics: int) -> list[workload.Workload]:
    """:func:`evalcore.workload.check` of this command line's request (ValueError naming the product, the
    limit and the options to lower); the workloads checked."""
    ws = command_workloads(args, n_runs, n_topics, n_metrics)
    for w in ws:
        workload.check(w, WORK_HINTS.get(args.command, workload.DEFAULT_HINT),
                       what=args.command if args.command != w.method else None)
    return ws


def check_simulated(args, n_metrics: int) -> None:
    """With ``--simulated`` the sizes are known from the options: the request is checked before the
    collection is built or scored (``n_metrics``: the metric names given, each at least one metric)."""
    if getattr(args, "simulated", False) and not getattr(args, "scores", None):
        top = getattr(args, "top", None)
        check_workload(args, args.systems if top is None else min(top, args.systems), args.topics, n_metrics)


def progress_printer(args, ws: list[workload.Workload]):
    """A progress callback printing ``COMMAND: N% done`` on standard error every 5 %, for a request
    estimated to take longer than :data:`PROGRESS_AFTER_S`; None otherwise."""
    if not ws or max(w.seconds() for w in ws) < PROGRESS_AFTER_S:
        return None
    shown = [-1]

    def progress(fraction: float):
        step = int(fraction * 20)
        if step > shown[0]:
            shown[0] = step
            print(f"{args.command}: {5 * step}% done", file=sys.stderr, flush=True)
        return False
    return progress


# -- input ------------------------------------------------------------------------
def load_scores(args) -> tuple[str, list[str], int, dict[str, np.ndarray]]:
    if args.top is not None and args.top < 2:
        raise ValueError(f"--top must be >= 2 (runs to compare); got {args.top}")
    if args.B is not None and args.B < 1:
        raise ValueError(f"--B must be >= 1; got {args.B}")
    check_simulated(args, len(metrics_of(args) or DEFAULT_METRICS))
    if args.scores:
        runs, topics, scores = read_score_csv(args.scores)
        name = args.scores
        if args.metrics:
            missing = [m for m in args.metrics if m not in scores]
            if missing:
                raise ValueError(f"--metrics {' '.join(missing)} not in {args.scores} "
                                 f"(it has: {', '.join(scores)})")
            chosen = {m: scores[m] for m in args.metrics}
        else:
            chosen = scores
        ranker = None
        if args.top is not None:
            if args.top_by not in scores:
                raise ValueError(f"--top-by {args.top_by} is not in {args.scores} (it has: {', '.join(scores)})")
            ranker = scores[args.top_by]
        n_topics = len(topics)
    else:
        c = load_from_args(args)
        params = metric_params(args)
        # over the topics each name implies (map: trec_eval -c's, AP: NTCIREVAL's), as evaluate and compare
        chosen, sets = policy_matrices(c, metrics_of(args) or DEFAULT_METRICS, topics=policy_of(args), **params)
        args.topic_sets = sets
        kinds = {(v["policy"], v["n_topics"]) for v in sets.values()}
        if len(kinds) > 1 and args.command != "kendall":
            raise ValueError("the metrics average over different topics ("
                             + "; ".join(f"{m}: {v['n_topics']} topics, {v['policy']}" for m, v in sets.items())
                             + f"), and {args.command} compares them on one topic set: choose it with --topics "
                             "trec_eval (every qrels topic, as trec_eval -c and ir_measures) or --topics ntcireval "
                             "(only topics with a relevant document, as NTCIREVAL)")
        ranker = None
        if args.top is not None:   # ranked by the mean over --top-by's own topics
            ranker = chosen.get(args.top_by)
            if ranker is None:
                ranker = policy_matrices(c, [args.top_by], topics=policy_of(args), **params)[0][args.top_by]
        runs, name = list(c.run_ids), c.name
        n_topics = max(v["n_topics"] for v in sets.values())
    chosen = apply_standardise(args, chosen)
    if ranker is not None:        # (set exactly when --top is given)
        idx = top_runs(ranker.mean(axis=1), args.top)
        chosen = subset_runs(chosen, idx)
        runs = [runs[i] for i in idx]
    # checked now that the runs, topics and metrics are known, before any resampling
    args.workloads = check_workload(args, len(runs), n_topics, len(chosen))
    return str(name), runs, n_topics, chosen


# -- output -----------------------------------------------------------------------
def _cell(v):
    if isinstance(v, (bool, np.bool_)):
        return "true" if v else "false"
    if isinstance(v, (float, np.floating)):
        return "-" if math.isnan(v) else ("inf" if math.isinf(v) else format(float(v), ".12g"))
    return visible(v)   # a run id's bidirectional or zero-width characters as \uXXXX escapes


def _records(df: pd.DataFrame) -> list[dict]:
    out = []
    for rec in df.to_dict(orient="records"):
        clean = {}
        for k, v in rec.items():
            if isinstance(v, (np.floating, float)):
                v = None if math.isnan(v) else (str(v) if math.isinf(v) else float(v))
            elif isinstance(v, np.integer):
                v = int(v)
            elif isinstance(v, np.bool_):
                v = bool(v)
            clean[str(k)] = v
        out.append(clean)
    return out


def emit(args, command: str, name: str, runs: list[str], n_topics: int, metrics: list[str], settings: dict,
          tables: dict[str, pd.DataFrame]) -> int:
    out = sys.stdout
    if args.output == "json":
        settings = {**settings, **topic_settings(args)}
        doc = {"command": command, "collection": name, "runs": runs, "n_topics": n_topics, "metrics": metrics,
               "settings": settings}
        doc.update({k: _records(v) for k, v in tables.items()})
        json.dump(doc, out, indent=1, allow_nan=False)
        out.write("\n")
        return 0
    table = args.table or ("spread" if getattr(args, "repeats", 1) > 1 else next(iter(tables)))
    df = tables[table]
    sets = getattr(args, "topic_sets", None)
    if sets and "metric" in df.columns and "topics" not in df.columns:   # as evaluate's tsv: POLICY:N
        df = df.assign(topics=df["metric"].map({m: f"{v['policy']}:{v['n_topics']}" for m, v in sets.items()}))
    out.write("\t".join(map(str, df.columns)) + "\n")
    for row in df.itertuples(index=False, name=None):
        out.write("\t".join(_cell(v) for v in row) + "\n")
    return 0


def topic_settings(args) -> dict:
    """The topics each metric ran over and the ranking order / depth of the lists (the JSON ``settings``)."""
    sets = getattr(args, "topic_sets", None)
    if not sets:
        return {"topic_sets": None}
    from ..specs import POLICY_TEXT

    return {"topic_sets": sets, "topic_policies": {p: POLICY_TEXT[p] for p in sorted({v["policy"] for v in
                                                                                        sets.values()})},
            "order": getattr(args, "order", None), "depth": getattr(args, "depth", None)}


def common_settings(args) -> dict:
    return {"B": args.B, "seed": args.seed, "alpha": list(args.alpha), "top": args.top,
            "top_by": args.top_by if args.top is not None else None, "scores": args.scores,
            **standardise_settings(args)}


# -- subcommands ------------------------------------------------------------------
def run_kendall(args) -> int:
    """``kendall``: correlation matrix of the metrics' system rankings."""
    name, runs, n_topics, scores = load_scores(args)
    if len(runs) < 2:
        raise ValueError(f"kendall correlates the metrics' rankings of runs, so it needs at least 2 runs; "
                         f"{name} has {len(runs)} ({', '.join(runs)}). Give more run files (--run A B ..., "
                         f"--runs DIR) or a score file with more runs")
    means = pd.DataFrame({m: v.mean(axis=1) for m, v in scores.items()}, index=runs)
    r = correlation_matrix(means, method=args.method, alpha=args.alpha[0])
    matrix = r.tau.reset_index().rename(columns={"index": "metric"})
    st = {**common_settings(args), "method": args.method, "alpha": args.alpha[0], "B": None, "seed": None}
    return emit(args, "kendall", name, runs, n_topics, list(scores), st, {"matrix": matrix, "pairs": r.tidy})


#: the figure an order claim is made on, and the summary row it is read from
_CLAIM_FIGURE = {"swap": ("pct_comparisons", "confidence"), "bootstrap": ("pct_significant", "alpha"),
                 "tukey": ("pct_significant", "alpha"), "stability": ("error_rate", "fuzziness")}


def dask_settings(args) -> dict:
    """The JSON settings' ``dask`` entry: how the Dask path ran (None: in memory)."""
    if not dask_options_given(args):
        return {"dask": None}
    return {"dask": {"scheduler": args.scheduler, "workers": args.workers,
                     "to_parquet": getattr(args, "to_parquet", None)}}


def dask_scheduler(args, stack: ExitStack):
    """The scheduler the Dask options ask for, opened on ``stack``: a client of ``--scheduler`` or of a local
    cluster of ``--workers`` processes (closed with the stack), else Dask's local threads."""
    from ..meta.on_dask import dask_client

    try:
        client = stack.enter_context(dask_client(scheduler=args.scheduler, workers=args.workers))
    except OSError as e:
        if args.scheduler is None:
            raise
        raise OSError(f"--scheduler {args.scheduler}: no Dask scheduler could be reached there ({e})") from None
    except RuntimeError as e:        # distributed's "Nanny failed to start": a worker process did not come up
        raise OSError(f"--workers {args.workers}: the local Dask cluster did not start ({e}; its workers' errors "
                      "are above)") from None
    return "threads" if client is None else client


def _run_repeated(args, method: str, name, runs, n_topics, scores, settings: dict, first_tables, **kw) -> int:
    if args.repeats < 1:
        raise ValueError(f"--repeats must be >= 1; got {args.repeats}")
    settings = {**settings, **dask_settings(args)}
    with ExitStack() as stack:
        if dask_options_given(args):
            if getattr(args, "to_parquet", None) is not None:
                kw["to_parquet"] = args.to_parquet
            r = repeat(method, scores, repeats=args.repeats, seed=args.seed, on_dask=True,
                       scheduler=dask_scheduler(args, stack), **kw)
        else:
            r = repeat(method, scores, repeats=args.repeats, seed=args.seed, threads=args.threads,
                       progress=progress_printer(args, getattr(args, "workloads", [])), **kw)
    figure, by = _CLAIM_FIGURE[method]
    level = r.per_repeat[by].iloc[0]
    claims = []
    for text in args.claim:
        names = [n.strip() for n in text.split(",") if n.strip()]
        if method == "stability":            # a lower error rate is better: the claim reads A <= B
            sh = order_share(r.per_repeat.assign(**{figure: -r.per_repeat[figure]}), names, figure, **{by: level})
            sh["claim"] = " <= ".join(names)
        else:
            sh = order_share(r.per_repeat, names, figure, **{by: level})
        claims.append({"claim": sh["claim"], "figure": f"{figure} ({by} {level:g})", "share": sh["share"],
                       "repeats": sh["repeats"],
                       "steps": "; ".join(f"{k.replace('>=', '<=') if method == 'stability' else k}: {v:g}"
                                          for k, v in sh["steps"].items())})
    tables = dict(first_tables(r.first))
    tables.update({"spread": r.spread, "repeats": r.per_repeat,
                   "claims": pd.DataFrame(claims, columns=["claim", "figure", "share", "repeats", "steps"])})
    st = {**settings, "repeats": args.repeats, "seeds": list(r.seeds)}
    if "subset_size" in st:
        st["subset_size"] = r.first.subset_size
    return emit(args, method, name, runs, n_topics, list(scores), st, tables)


def run_swap(args) -> int:
    """``swap``: swap-rate curves and the Table 3 summary."""
    check_dask_options(args)
    name, runs, n_topics, scores = load_scores(args)
    st = {**common_settings(args), "sampling": args.sampling, "subset_size": args.subset_size, "rule": args.rule,
          "bin_width": args.bin_width, "bins": args.bins, "confidence": list(args.confidence), "alpha": None}
    return _run_repeated(args, "swap", name, runs, n_topics, scores, st,
                         lambda r: {"summary": r.summary, "curves": r.curves},
                         sampling=args.sampling, subset_size=args.subset_size, B=args.B, bin_width=args.bin_width,
                         n_bins=args.bins, rule=args.rule, confidences=args.confidence)


def run_bootstrap(args) -> int:
    """``bootstrap``: ASL of every pair, discriminative power, estimated difference."""
    check_dask_options(args)
    name, runs, n_topics, scores = load_scores(args)
    return _run_repeated(args, "bootstrap", name, runs, n_topics, scores, common_settings(args),
                         lambda r: {"summary": r.summary, "pairs": r.pairs, "curves": r.asl_curves},
                         run_ids=runs, B=args.B, alpha=tuple(args.alpha))


def run_stability(args) -> int:
    """``stability``: error rate and proportion of ties per fuzziness."""
    check_dask_options(args)
    name, runs, n_topics, scores = load_scores(args)
    st = {**common_settings(args), "subset_size": args.subset_size, "fuzziness": list(args.fuzziness),
          "replacement": args.replacement, "alpha": None}
    return _run_repeated(args, "stability", name, runs, n_topics, scores, st,
                         lambda r: {"summary": r.summary, "pairs": r.pairs},
                         run_ids=runs, subset_size=args.subset_size, B=args.B, fuzziness=tuple(args.fuzziness),
                         replacement=args.replacement)


def run_tukey(args) -> int:
    """``tukey``: randomised Tukey HSD."""
    check_dask_options(args)
    name, runs, n_topics, scores = load_scores(args)
    return _run_repeated(args, "tukey", name, runs, n_topics, scores, common_settings(args),
                         lambda r: {"summary": r.summary, "pairs": r.pairs},
                         run_ids=runs, B=args.B, alpha=tuple(args.alpha))
