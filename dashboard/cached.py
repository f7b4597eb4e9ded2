"""Every evalcore call the app makes, cached (the only module importing both
streamlit and evalcore, STYLE.md).

Cache keys always carry the data's identity, ``collection.fingerprint``,
passed explicitly as ``fp`` because the collection itself is an unhashed
``_c`` argument. Score matrices are cached one metric at a time with only
the settings that metric reads, so moving a gain slider recomputes the
graded metrics and reuses AP, RR and NWRR.
"""
from __future__ import annotations

import time
from dataclasses import replace
from typing import Callable

import numpy as np
import pandas as pd
import streamlit as st

import evalcore
from evalcore import meta as _meta
from evalcore import registry
from evalcore.collection import Collection
from evalcore.gains import GAIN_PRESETS, resolve_gains

from . import state
from .state import Settings

METRIC_KEYS = registry.METRIC_KEYS
METRICS = registry.METRICS
ONE_DOCUMENT_KEYS = registry.ONE_DOCUMENT_KEYS
InputError = evalcore.InputError
#: what one upload may cost on a shared server (decompression, runs, topics, depth, tensor memory)
UPLOAD_LIMITS = evalcore.io.APP_LIMITS

if set(state.CUTOFF_REQUIRED) != {k for k, spec in METRICS.items() if spec.cutoff == "required"}:
    raise RuntimeError("dashboard.state.CUTOFF_REQUIRED is out of date with evalcore's registry")


# -- data ------------------------------------------------------------------
@st.cache_resource(max_entries=8, show_spinner="Simulating a collection ...")
def simulated(n_topics: int, n_runs: int, seed: int) -> Collection:
    return evalcore.simulated_collection(n_topics=n_topics, n_runs=n_runs, seed=seed)


@st.cache_resource
def examples() -> Collection:
    return evalcore.paper_examples()


def example_notes() -> dict[str, str]:
    from evalcore.simulate import PAPER_EXAMPLE_NOTES
    return dict(PAPER_EXAMPLE_NOTES)


def load_upload(qrels: tuple[str, bytes], runs: list[tuple[str, bytes]], *, order: str = "score",
                condensed: bool = False, keep_first_duplicate: bool = False,
                progress: Callable | None = None) -> Collection:
    """Parse uploaded files; raises evalcore.InputError (readable) on bad input."""
    import inspect
    run_arg = runs[0] if len(runs) == 1 and runs[0][0].lower().endswith(".zip") else runs
    kw = {"order": order, "condensed": condensed, "keep_first_duplicate": keep_first_duplicate,
          "limits": UPLOAD_LIMITS}
    if progress is not None and "progress" in inspect.signature(evalcore.load_collection).parameters:
        kw["progress"] = progress
    try:
        return evalcore.load_collection(qrels, run_arg, **kw)
    except NotImplementedError:
        raise InputError("Loading files is not available yet in this version of evalcore "
                         "(evalcore.io.load_collection is still being written).") from None


def current_collection(s: Settings | None = None) -> Collection:
    """The collection the sidebar's dataset choice points at."""
    ss = st.session_state
    ds = ss.get("dataset", "sim")
    if ds == "upload" and ss.get("uploaded") is not None:
        return ss["uploaded"]
    if ds == "examples":
        return examples()
    return simulated(int(ss.get("sim_topics", 50)), int(ss.get("sim_runs", 30)), int(ss.get("sim_seed", 0)))


# -- scores ------------------------------------------------------------------
def _relevant(key: str, s: Settings) -> tuple:
    spec = METRICS[key.partition("@")[0]]
    return (s.gains if spec.uses_gains else None,
            s.beta if spec.uses_beta else None,
            s.penalties if spec.uses_penalties else None,
            s.rel_threshold if spec.uses_threshold else None)


@st.cache_data(max_entries=2048, show_spinner=False)
def _score(_c: Collection, fp: str, key: str, gains, beta, penalties, thr) -> np.ndarray:
    kw = {}
    if gains is not None:
        kw["gains"] = list(gains)
    if beta is not None:
        kw["beta"] = beta
    if penalties is not None:
        kw["penalties"] = list(penalties)
    if thr is not None:
        kw["rel_threshold"] = thr
    return registry.score_matrix(_c, key, **kw)


def score(c: Collection, key: str, s: Settings) -> np.ndarray:
    """(n_runs, n_topics) scores of one metric key under the settings."""
    return _score(c, c.fingerprint, key, *_relevant(key, s))


def usable(c: Collection, s: Settings) -> Settings:
    """The settings with every metric that cannot be computed under them left
    out (e.g. nERR when a lower level gets a larger gain than the top one),
    each with a warning in the sidebar saying why."""
    ok = []
    for base in s.metrics:
        key = state.expand(base, s.cutoff)
        try:
            score(c, key, s)
            ok.append(base)
        except ValueError as e:
            st.sidebar.warning(f"{key} is left out with these settings: {e}", icon=":material/warning:")
    return replace(s, metrics=tuple(ok) or ("AP",))


def scores(c: Collection, s: Settings, keys=None) -> dict[str, np.ndarray]:
    return {k: score(c, k, s) for k in (keys or s.metric_keys)}


def means(c: Collection, s: Settings, keys=None) -> pd.DataFrame:
    """Index = runs, one column per metric key: mean over topics."""
    mats = scores(c, s, keys)
    return pd.DataFrame({k: m.mean(axis=1) for k, m in mats.items()},
                        index=pd.Index(c.run_ids, name="run"))


def top_runs(c: Collection, s: Settings) -> np.ndarray:
    """Indices of the runs the analysis pages use: the top N by a metric (all if N = 0)."""
    if s.top_n <= 0 or s.top_n >= c.n_runs:
        return np.arange(c.n_runs)
    key = state.expand(s.top_by, s.cutoff) if s.top_by in METRICS else s.metric_keys[0]
    try:
        m = score(c, key, s).mean(axis=1)
    except ValueError as e:
        st.sidebar.warning(f"Top N by {key} is off with these settings: {e}", icon=":material/warning:")
        return np.arange(c.n_runs)
    order = np.argsort(-m, kind="stable")
    return np.sort(order[: s.top_n])


def analysis_collection(c: Collection, s: Settings) -> Collection:
    idx = top_runs(c, s)
    return c if len(idx) == c.n_runs else _subset(c, c.fingerprint, tuple(idx.tolist()))


@st.cache_resource(max_entries=16)
def _subset(_c: Collection, fp: str, runs: tuple) -> Collection:
    return _c.subset(runs=list(runs))


def preset_gains(name: str, K: int) -> list[float] | None:
    """Ascending gains of a paper preset for K levels, None if it does not extend to K."""
    try:
        return resolve_gains(name, K).tolist()
    except ValueError:
        return None


def label(key: str, c: Collection, s: Settings) -> str:
    """The canonical configured label, e.g. ``Q-measure(gains=10:5:1)``."""
    return registry.metric_label(key, c, gains=list(s.gains), beta=s.beta, penalties=list(s.penalties),
                                 rel_threshold=s.rel_threshold)


def first_and_preferred(c: Collection, s: Settings) -> tuple[np.ndarray, np.ndarray]:
    """r_1 and r_p per (run, topic): gain-independent, so cached by the data alone."""
    return _ranks(c, c.fingerprint)


@st.cache_data(max_entries=16, show_spinner=False)
def _ranks(_c: Collection, fp: str) -> tuple[np.ndarray, np.ndarray]:
    from evalcore import metrics as M
    return (M.first_rank(_c, rel_threshold=1), M.preferred_rank(_c))


# -- rank correlation (cheap, live) -----------------------------------------
@st.cache_data(max_entries=256, show_spinner=False)
def correlation(means_df: pd.DataFrame, alpha: float = 0.01) -> tuple[pd.DataFrame, pd.DataFrame]:
    res = _meta.correlation_matrix(means_df, method="tau-b", alpha=alpha)
    return res.tau, res.significant


def kendall(x, y) -> float:
    return float(_meta.kendall_tau(np.asarray(x, float), np.asarray(y, float), variant="b"))


def kendall_test(tau: float, n: int, alpha: float = 0.05) -> dict:
    return dict(_meta.kendall_test(tau, n, alpha=alpha))


@st.cache_data(max_entries=128, show_spinner=False)
def _gain_table(_c: Collection, fp: str, key: str, beta: float, presets: tuple) -> pd.DataFrame:
    cols = {}
    for name in presets:
        g = preset_gains(name, _c.max_level)
        if g is not None:
            try:
                cols[name] = registry.score_matrix(_c, key, gains=g, beta=beta).mean(axis=1)
            except ValueError:      # e.g. nERR under a preset it does not accept
                continue
    return pd.DataFrame(cols, index=pd.Index(_c.run_ids, name="run"))


def gain_settings_means(c: Collection, key: str, s: Settings) -> pd.DataFrame:
    """Means of one metric under every paper preset and the current gains (003 Table 5)."""
    df = _gain_table(c, c.fingerprint, key, s.beta, tuple(state.PRESETS) + ("2:1.5:1",)).copy()
    cur = "current (" + state.paper(s.gains) + ")"
    if state.paper(s.gains) not in df.columns:
        df[cur] = score(c, key, s).mean(axis=1)
    return df


@st.cache_data(max_entries=128, show_spinner=False)
def _sweep(_c: Collection, fp: str, key: str, gains: tuple, beta: float, level: int, grid: tuple) -> pd.DataFrame:
    K = _c.max_level
    ref = registry.score_matrix(_c, key, gains=resolve_gains("3:2:1", K).tolist(), beta=beta).mean(axis=1)
    rows = []
    for v in grid:
        g = list(gains)
        g[level - 1] = v
        try:
            m = registry.score_matrix(_c, key, gains=g, beta=beta).mean(axis=1)
        except ValueError:          # a gain this metric does not accept (nERR): leave a gap
            rows.append({"gain": v, "tau": float("nan")})
            continue
        rows.append({"gain": v, "tau": kendall(ref, m)})
    return pd.DataFrame(rows)


def gain_sweep(c: Collection, key: str, s: Settings, level: int) -> pd.DataFrame:
    """tau between the 3:2:1 ranking and the ranking as level ``level``'s gain moves."""
    grid = tuple(np.round(np.geomspace(0.1, 30, 25), 3).tolist())
    return _sweep(c, c.fingerprint, key, tuple(s.gains), s.beta, level, grid)


# -- long computations (button, progress, cached by data + settings + seed) --
class Progress:
    """A progress callback for evalcore.meta drawing into a st.progress bar."""

    def __init__(self, text: str):
        self.bar = st.progress(0.0, text=text)
        self.text = text
        self.last = -1.0
        self.t0 = time.perf_counter()

    def __call__(self, frac: float):
        frac = float(min(max(frac, 0.0), 1.0))
        if frac - self.last >= 0.01 or frac >= 1.0:
            self.last = frac
            self.bar.progress(frac, text=f"{self.text} {frac:.0%} ({time.perf_counter() - self.t0:.1f} s)")
        return None

    def done(self):
        self.bar.empty()


def _frames(res, names) -> dict[str, pd.DataFrame]:
    return {n: getattr(res, n) for n in names if getattr(res, n, None) is not None}


@st.cache_data(max_entries=64, show_spinner=False)
def swap(_scores: dict, data_key: tuple, sampling: str, subset_size, B: int, seed: int,
         _progress: Callable | None = None) -> dict[str, pd.DataFrame]:
    res = _meta.swap_method(_scores, sampling=sampling, subset_size=subset_size, B=B, seed=seed,
                             rule="003", progress=_progress)
    return _frames(res, ("curves", "summary"))


@st.cache_data(max_entries=64, show_spinner=False)
def bootstrap(_scores: dict, data_key: tuple, run_ids: tuple, B: int, seed: int, alpha: float,
              _progress: Callable | None = None) -> dict[str, pd.DataFrame]:
    res = _meta.bootstrap_sensitivity(_scores, run_ids=list(run_ids), B=B, seed=seed, alpha=alpha,
                                       progress=_progress)
    return _frames(res, ("pairs", "summary", "asl_curves"))


@st.cache_data(max_entries=64, show_spinner=False)
def tukey(_scores: dict, data_key: tuple, run_ids: tuple, B: int, seed: int, alpha: float,
          _progress: Callable | None = None) -> dict[str, pd.DataFrame]:
    res = _meta.tukey_hsd(_scores, run_ids=list(run_ids), B=B, seed=seed, alpha=alpha, progress=_progress)
    return _frames(res, ("pairs", "summary"))


@st.cache_data(max_entries=64, show_spinner=False)
def stability(_scores: dict, data_key: tuple, subset_size, B: int, seed: int,
              _progress: Callable | None = None) -> dict[str, pd.DataFrame]:
    res = _meta.stability(_scores, subset_size=subset_size, B=B, seed=seed, progress=_progress)
    return _frames(res, ("summary",))


def data_key(c: Collection, s: Settings) -> tuple:
    """Identity of a score set for the long computations' caches."""
    return (c.fingerprint, s.metric_keys, s.gains, s.beta, s.penalties, s.rel_threshold, s.cutoff)


def cancelled_error() -> type:
    return _meta.Cancelled
