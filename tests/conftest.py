"""Shared fixtures and hypothesis strategies for the metric tests.

Nothing here is autouse, no hypothesis profile is loaded and no setting is made for the whole run: the
tests run the code with the defaults users get (the dashboard draws its figures without plotly's
validation, as shipped; tests/test_figures_layout.py builds every chart both ways).
``random_collection`` builds *consistent* test collections: every ranked list draws distinct documents from its topic's
judged pool (so a list never holds more level-L documents than the topic
has) plus unjudged non-relevant ones.
"""
from __future__ import annotations

import logging
import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import strategies as st

from evalcore.collection import Collection

#: the real CLEF eHealth 2015 collection, read from ../shared/data (never copied); EVALCORE_CLEF2015 overrides
CLEF2015 = Path(os.environ.get("EVALCORE_CLEF2015")
                or Path(__file__).resolve().parents[1].parent / "shared" / "data" / "clef2015")
IN_CI = os.environ.get("CI", "").lower() == "true"
CLEF2015_MISSING = (
    f"CLEF eHealth 2015 test data not found at {CLEF2015} (needs qrels.txt and runs/*.dat.gz). Get it: the "
    "project's shared/data/clef2015 beside the checkout (../shared/data/clef2015), or build it from the public "
    "repository CLEFeHealth/CLEFeHealth2015Task2 (qrels/qrels.eng.clef2015.qtest.graded.txt as qrels.txt, "
    "runs/english-runs/*.dat gzipped into runs/; see shared/data/clef2015/README.md), or point "
    "EVALCORE_CLEF2015 at such a directory. Skipped locally; fails under CI=true."
)


class _AppLog(logging.Handler):
    """Collects the dashboard's records of a bug it turned into an error box (logger ``evalcore.app``)."""

    def __init__(self):
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record):
        self.records.append(record)


@pytest.fixture(autouse=True)
def app_bugs_fail_the_test(request):
    """The dashboard shows a bug as an error box and logs its traceback (dashboard.shell.guard,
    dashboard.errors.guarded), under AppTest as in the shipped app: any such record in a test fails it,
    with the traceback, unless the test is marked ``app_bug_expected`` (it provokes one on purpose and
    reads the records from ``request.node.app_log``). This only listens; it changes nothing that runs."""
    handler = _AppLog()
    log = logging.getLogger("evalcore.app")
    log.addHandler(handler)
    request.node.app_log = handler.records
    try:
        yield
    finally:
        log.removeHandler(handler)
    if handler.records and request.node.get_closest_marker("app_bug_expected") is None:
        shown = "\n".join(logging.Formatter().format(r) for r in handler.records[:3])
        pytest.fail(f"the dashboard logged {len(handler.records)} unexpected error(s) and showed an error box:\n"
                    f"{shown}", pytrace=False)


def need_clef2015() -> Path:
    """The collection's path; skips (locally) or fails (CI=true) with :data:`CLEF2015_MISSING` without it."""
    if not (CLEF2015 / "qrels.txt").is_file() or not (CLEF2015 / "runs").is_dir():
        if IN_CI:
            pytest.fail(CLEF2015_MISSING)
        pytest.skip(CLEF2015_MISSING)
    return CLEF2015


@pytest.fixture(scope="session")
def clef2015() -> Path:
    """Path of shared/data/clef2015 (qrels.txt, runs/*.dat.gz)."""
    return need_clef2015()


@pytest.fixture(scope="session")
def clef2015_collection(clef2015):
    """shared/data/clef2015 loaded once per session with ``evalcore.load_collection``."""
    import evalcore

    return evalcore.load_collection(clef2015 / "qrels.txt", clef2015 / "runs")


def random_lists(rng: np.random.Generator, counts, n_runs: int, max_depth: int) -> list[list[int]]:
    """``n_runs`` ranked lists of levels for one topic with per-level ``counts``.

    Mixes list styles: empty (topic missing from the run), random order,
    near-ideal (relevant first, roughly by level), and relevant documents
    pushed below rank R. Lengths vary from 1 to ``max_depth``.
    """
    pool = [L for L in range(1, len(counts)) for _ in range(int(counts[L]))]
    out = []
    for _ in range(n_runs):
        style = rng.integers(0, 10)
        if style == 0:
            out.append([])
            continue
        length = int(rng.integers(1, max_depth + 1))
        n_rel = int(rng.integers(0, min(len(pool), length) + 1))
        chosen = [pool[i] for i in rng.permutation(len(pool))[:n_rel]]
        if style in (1, 2):                       # near-ideal: relevant first, mostly by level
            chosen.sort(key=lambda L: -L + rng.normal(0, 0.6))
            lst = chosen + [0] * (length - n_rel)
        elif style == 3:                          # relevant only below rank R where possible
            R = len(pool)
            lst = [0] * length
            slots = list(range(min(R, length), length))
            if len(slots) < n_rel:
                slots = list(range(length))
            for L, pos in zip(chosen, sorted(rng.choice(slots, size=n_rel, replace=False)), strict=True):
                lst[pos] = L
        else:                                     # random positions
            lst = [0] * length
            for L, pos in zip(chosen, rng.choice(length, size=n_rel, replace=False), strict=True):
                lst[int(pos)] = L
        out.append([int(v) for v in lst])
    return out


def random_collection(rng: np.random.Generator, *, K: int = 3, n_runs: int = 4, n_topics: int = 4,
                      max_depth: int = 60, max_per_level: int = 12) -> Collection:
    """A consistent random collection with levels 0..K.

    Per topic, each level 1..K has 0..max_per_level judged documents (at
    least one relevant document per topic, as the loader guarantees); the
    highest level K is sometimes absent from a topic, so the topic's
    highest level M varies.
    """
    counts = {}
    for j in range(n_topics):
        c = [int(rng.integers(0, 30))] + [int(rng.integers(0, max_per_level + 1)) for _ in range(K)]
        if rng.random() < 0.25:
            c[K] = 0
        if sum(c[1:]) == 0:
            c[int(rng.integers(1, K + 1))] = 1
        counts[f"t{j}"] = c
    lists = {f"r{i}": {} for i in range(n_runs)}
    for t, c in counts.items():
        for i, lst in enumerate(random_lists(rng, c, n_runs, max_depth)):
            if lst:
                lists[f"r{i}"][t] = lst
    return Collection.from_lists(lists, counts)


@st.composite
def collections(draw, min_K: int = 1, max_K: int = 3, max_runs: int = 4, max_topics: int = 4,
                max_depth: int = 40, max_per_level: int = 10) -> Collection:
    """Hypothesis strategy: small consistent random collections (sizes drawn, contents seeded)."""
    K = draw(st.integers(min_K, max_K))
    n_runs = draw(st.integers(1, max_runs))
    n_topics = draw(st.integers(1, max_topics))
    depth = draw(st.integers(1, max_depth))
    per_level = draw(st.integers(1, max_per_level))
    seed = draw(st.integers(0, 2**32 - 1))
    return random_collection(np.random.default_rng(seed), K=K, n_runs=n_runs, n_topics=n_topics,
                             max_depth=depth, max_per_level=per_level)


@pytest.fixture()
def plain_main(monkeypatch):
    """A bare ``__main__`` while the test runs: streamlit's AppTest (the app tests, test_conventions.py) leaves
    ``sys.modules["__main__"]`` set to app.py, and a dask.distributed worker process started by
    multiprocessing's spawn re-runs the parent's ``__main__`` file, so every local cluster started after an app
    test would fail in app.py ("Nanny failed to start")."""
    import sys
    import types

    monkeypatch.setitem(sys.modules, "__main__", types.ModuleType("__main__"))
