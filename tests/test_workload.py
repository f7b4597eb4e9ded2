"""Work sized before it starts (evalcore.workload; docs/reliability.md, "Work products").

Options within their bounds whose product cannot end are refused through the real command line, naming
the product and the limit, before anything large is allocated (tracemalloc's peak, not a clock); sizes the
docs describe pass, with the products computed here by hand; the Python functions refuse the same way.
"""
from __future__ import annotations

import contextlib
import io
import tracemalloc

import numpy as np
import pytest

import evalcore.cli.compare
import evalcore.cli.meta
import evalcore.cli.report
import evalcore.cli.stats  # noqa: F401  (imported before tracing: module imports are not the request)
from evalcore import workload
from evalcore.cli import main

#: Most bytes a refused command may allocate: its parsing and the arithmetic of the check (the smallest
#: request refused below would need gigabytes).
REFUSAL_BYTES = 8 << 20


def run_traced(argv: list[str]) -> tuple[int, str, int]:
    """(exit status, standard error, tracemalloc peak in bytes) of ``evalcore ARGV`` in this process."""
    err, out = io.StringIO(), io.StringIO()
    tracemalloc.start()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
            rc = main(argv)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return rc, err.getvalue(), peak


REFUSED = [
    # (argv, words the message must hold: the product's figures, its result and the limit)
    (["bootstrap", "--simulated", "--systems", "10000", "--B", "1000000"],
     ["10,000 runs", "49,995,000 run pairs", "B = 1,000,000", "7 metrics", "50 topics", "1.7e16",
      "the limit is 5.0e12", "--B"]),
    (["swap", "--simulated", "--systems", "10000", "--B", "1000000"],
     ["49,995,000 run pairs", "B = 1,000,000", "the limit is 1.0e12", "--top"]),
    (["tukey", "--simulated", "--systems", "10000", "--B", "1000000"],
     ["10,000 runs", "50 topics", "B = 1,000,000", "3.5e12", "the limit is 2.0e11"]),
    (["stability", "--simulated", "--systems", "10000", "--B", "1000000"],
     ["49,995,000 run pairs", "4 fuzziness values", "the limit is 3.0e12"]),
    (["pairs", "--simulated", "--systems", "2000", "--test", "bootstrap", "--B", "100000"],
     ["1,999,000 run pairs", "B = 100,000 bootstrap samples", "7.0e13", "the limit is 2.0e12"]),
    # no resampling at all: the per-pair tables alone would not fit
    (["pairs", "--simulated", "--systems", "10000"],
     ["49,995,000 run pairs", "of memory", "the limit is 16.0 GiB"]),
    (["compare", "--simulated", "--systems", "10000", "-m", "AP"],
     ["49,995,000 run pairs", "the limit is 16.0 GiB"]),
    (["bootstrap", "--simulated", "--systems", "300", "--B", "100000", "--repeats", "1000"],
     ["44,850 run pairs", "1,000 repetitions", "the limit is 5.0e12", "--repeats"]),
    (["report", "--simulated", "--systems", "300", "--top", "300", "--repeats", "1000", "--out", "{tmp}"],
     ["report, bootstrap", "44,850 run pairs", "1,000 repetitions", "the limit is 5.0e12", "--topic-resamples"]),
    (["report", "--simulated", "--systems", "300", "--top", "300", "--topic-resamples", "10000", "--topic-B",
      "1000", "--out", "{tmp}"],
     ["report, swap", "10,000 topic samples", "the limit is 1.0e12"]),
]


@pytest.mark.parametrize("argv, words", REFUSED, ids=[" ".join(a[:1] + a[2:4] + a[4:6]) for a, _ in REFUSED])
def test_refused_before_allocation(argv, words, tmp_path):
    argv = [a.replace("{tmp}", str(tmp_path / "out")) for a in argv]
    rc, err, peak = run_traced(argv)
    assert rc == 2, err
    assert err.startswith(f"error: {argv[0]}"), err
    for w in words:
        assert w in err, (w, err)
    assert "docs/reliability.md" in err
    assert peak < REFUSAL_BYTES, f"{peak:,} bytes allocated before the refusal"


def test_loaded_scores_refused_after_reading(tmp_path):
    """A score file is read (bounded by its size) and the request refused before any resampling: 2,100
    runs x 3 topics -> 2,203,950 pairs x B = 1,000,000 swap trials."""
    path = tmp_path / "scores.tsv"
    lines = ["run\ttopic\tmetric\tvalue"] + [f"r{i}\tt{t}\tAP\t{(i * 7 + t) % 100 / 100}"
                                            for i in range(2100) for t in range(3)]
    path.write_text("\n".join(lines) + "\n")
    rc, err, peak = run_traced(["swap", "--scores", str(path), "--B", "1000000"])
    assert rc == 2, err
    assert "2,100 runs -> 2,203,950 run pairs" in err and "the limit is 1.0e12" in err, err
    assert peak < 64 << 20, f"{peak:,} bytes"                # the file's tables, not 2,100 x 10^6 means


def test_realistic_sizes_pass():
    """The uses the docs describe are within every limit; products computed by hand."""
    # the report on clef2015 (30 runs, B = 1000, Tukey 5000, 5 repetitions, 100 topic samples at B = 200)
    for w in workload.report_work(30, 50, B=1000, tukey_B=5000, repeats=5, topic_resamples=100, topic_B=200):
        workload.check(w)
    boot = [w for w in workload.report_work(30, 50, B=1000, tukey_B=5000, repeats=5, topic_resamples=100,
                                            topic_B=200) if w.method == "bootstrap"][0]
    assert boot.work == 5 * 435 * 1000 * 22 * 50 + 100 * 435 * 200 * 7 * 50
    # 200 runs x 10,000 samples x 003's seven metrics
    w = workload.check(workload.bootstrap_work(200, 50, B=10_000, n_metrics=7))
    assert w.work == 19_900 * 10_000 * 7 * 50 == 69_650_000_000
    w = workload.check(workload.swap_work(200, 50, B=10_000, n_metrics=7))
    assert w.work == 7 * 10_000 * (19_900 + 2 * 200 * 50)
    w = workload.check(workload.stability_work(200, 50, B=10_000, n_metrics=7, n_fuzziness=4))
    assert w.work == 7 * 10_000 * (19_900 * 4 + 200 * 25)
    w = workload.check(workload.tukey_work(200, 50, B=10_000, n_metrics=7))
    assert w.work == 7 * 10_000 * 200 * 50
    w = workload.check(workload.pairs_work(200, 50, B=10_000, n_metrics=7, tests=("t", "bootstrap")))
    assert w.work == 7 * 19_900 * 50 * (1 + 10_000)
    # the largest collection the loader takes by default (2,000 runs), at the default B
    workload.check(workload.bootstrap_work(2000, 50, B=1000, n_metrics=7))
    workload.check(workload.pairs_work(2000, 50, B=1000, n_metrics=7))


def test_memory_counts_what_is_kept():
    """swap keeps every run's means over both samples (at least 2 x runs x B floats per metric); the
    pair statistics one row per metric and pair."""
    assert workload.swap_work(10_000, 50, B=1_000_000, n_metrics=1).bytes >= 2 * 8 * 10_000 * 1_000_000
    assert workload.pairs_work(10_000, 50, B=1000, n_metrics=7).bytes >= 7 * 49_995_000 * 8 * 10
    # chunked work arrays: memory of the bootstrap does not grow with B x pairs, only with its tables
    small, big = (workload.bootstrap_work(100, 50, B=B, n_metrics=1).bytes for B in (1000, 100_000))
    assert big < 100 * small


def test_cli_realistic_runs(capsys):
    """A realistic command still runs through the same check (30 runs, the report's B)."""
    assert main(["bootstrap", "--simulated", "--systems", "30", "--B", "200", "-m", "AP"]) == 0
    out = capsys.readouterr()
    assert out.out.startswith("metric\talpha"), out


@pytest.mark.parametrize("call", ["bootstrap", "swap", "stability", "tukey", "pairs", "repeat", "topics"])
def test_python_functions_refuse_at_entry(call):
    """The Python API runs the same check at its entry: refused before the samples are drawn."""
    from evalcore import meta

    scores = {"AP": np.zeros((3000, 50))}
    calls = {
        "bootstrap": lambda: meta.bootstrap_sensitivity(scores, B=1_000_000),
        "swap": lambda: meta.swap_method(scores, B=1_000_000),
        "stability": lambda: meta.stability(scores, B=1_000_000),
        "tukey": lambda: meta.tukey_hsd({"AP": np.zeros((3000, 200))}, B=1_000_000),
        "pairs": lambda: meta.pair_statistics(scores, B=100_000, tests=("t", "bootstrap")),
        "repeat": lambda: meta.repeat("bootstrap", {"AP": np.zeros((300, 50))}, repeats=1000, B=100_000),
        "topics": lambda: meta.topic_bootstrap({"AP": np.zeros((300, 50))}, "swap", resamples=10_000, B=100_000),
    }
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match=r"the limit is .*docs/reliability.md"):
            calls[call]()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < REFUSAL_BYTES, f"{peak:,} bytes"


def test_budgets_restated_equal():
    """workload restates the methods' work-array budgets so that sizing imports no method module."""
    import importlib
    import inspect

    from evalcore.meta._common import pair_chunks

    bootstrap, stability, swap, tukey = (importlib.import_module(f"evalcore.meta.{m}")
                                         for m in ("bootstrap", "stability", "swap", "tukey"))
    assert workload._BOOT_CHUNK == bootstrap.CHUNK_BYTES
    assert workload._STAB_CHUNK == stability.CHUNK_BYTES
    assert workload._SWAP_ROWS == swap.ROW_BUDGET
    assert workload._TUKEY_CELLS == tukey.BLOCK_CELLS
    assert workload._PAIRS_CHUNK == inspect.signature(pair_chunks).parameters["budget"].default


@pytest.mark.parametrize("method", ["bootstrap", "swap", "stability", "tukey", "pairs"])
def test_memory_estimate_bounds_the_peak(method):
    """The estimate is at least the peak tracemalloc sees on a mid-sized call (300 runs, B = 200)."""
    from evalcore import meta

    rng = np.random.default_rng(0)
    scores = {"A": rng.random((300, 30)), "B": rng.random((300, 30))}
    f = {"bootstrap": meta.bootstrap_sensitivity, "swap": meta.swap_method, "stability": meta.stability,
         "tukey": meta.tukey_hsd, "pairs": meta.pair_statistics}[method]
    kw = {"tests": ("t", "bootstrap")} if method == "pairs" else {}
    est = (workload.pairs_work(300, 30, B=200, n_metrics=2, **kw) if method == "pairs"
           else workload.method_work(method, 300, 30, B=200, n_metrics=2))
    tracemalloc.start()
    try:
        f(scores, B=200, threads=1, **kw)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak <= est.bytes, f"{method}: peak {peak:,} > estimate {est.bytes:,.0f}"
