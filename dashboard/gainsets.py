"""Gain settings compared: the papers' presets on K levels, the geometric family of the "Which gains?" page,
and what each setting does to the ranking (Kendall's tau) and to discriminative power (Sakai 2007 Sec. 5.3,
Table 5).
"""
from __future__ import annotations

import time
from dataclasses import replace

import numpy as np
import pandas as pd
import streamlit as st

import evalcore
from evalcore import meta as _meta
from evalcore import registry, workload
from evalcore.collection import Collection
from evalcore.gains import resolve_gains

from . import ranks, scoring, state
from .errors import guarded
from .limits import page_check, session_threads
from .progress import Progress
from .state import Settings
from .stores import derived, memo


def preset_gains(name: str, K: int) -> list[float] | None:
    """Ascending gains of a paper preset for K levels, None if it does not extend to K."""
    try:
        return resolve_gains(name, K).tolist()
    except ValueError:
        return None


def _gain_table(_c: Collection, key: str, beta: float, presets: tuple) -> pd.DataFrame:
    cols = {}
    for name in presets:
        g = preset_gains(name, _c.max_level)
        if g is not None:
            try:
                cols[state.paper(g)] = registry.score_matrix(_c, key, gains=g, beta=beta).mean(axis=1)
            except ValueError:      # e.g. nERR under a preset it does not accept
                continue
    return pd.DataFrame(cols, index=pd.Index(_c.run_ids, name="run"))


def gain_settings_means(c: Collection, key: str, s: Settings) -> pd.DataFrame:
    """Means of one metric under every paper preset and the current gains (Sakai 2007 Table 5)."""
    presets = tuple(evalcore.GAIN_PRESETS)
    df = memo(("gain_table", c.fingerprint, key, s.beta, presets),
               lambda: _gain_table(c, key, s.beta, presets)).copy()
    cur = "current (" + state.paper(s.gains) + ")"
    if state.paper(s.gains) not in df.columns:
        df[cur] = scoring.score(c, key, s).mean(axis=1)
    return df


def gain_sweep(c: Collection, key: str, s: Settings, level: int) -> pd.DataFrame:
    """tau between the 3:2:1 ranking and the ranking as level ``level``'s gain moves
    (:func:`evalcore.gain_sweep`, its default grid)."""
    gains = tuple(s.gains)
    return memo(("sweep", c.fingerprint, key, gains, s.beta, level),
                 lambda: evalcore.gain_sweep(c, key, level=level, gains=list(gains), beta=s.beta,
                                             reference="3:2:1")).copy()

def _power_spread(c: Collection, key: str, gains: tuple, beta: float, penalties: tuple, thr: int,
                  alpha: float, B: int, seed: int, repeats: int) -> dict:
    """Bootstrap % significant of one metric under one gain setting, repeated
    ``repeats`` times with seeds derived from ``seed`` (evalcore.meta.repeat;
    repetition 1 uses ``seed`` itself): mean, sd (ddof = 1), min, max.
    """
    sc = {key: registry.score_matrix(c, key, gains=list(gains), beta=beta, penalties=list(penalties),
                                     rel_threshold=thr)}
    res = _meta.repeat("bootstrap", sc, repeats=int(repeats), seed=int(seed), run_ids=list(c.run_ids), B=int(B),
                       alpha=alpha, threads=session_threads("bootstrap"))
    row = res.spread[res.spread["figure"] == "pct_significant"].iloc[0]
    sd = float(row["sd"])
    return {"mean": float(row["mean"]), "sd": sd if np.isfinite(sd) else 0.0,
            "min": float(row["min"]), "max": float(row["max"]), "repeats": int(repeats), "B": int(B)}


def _spread_key(c: Collection, key: str, s: Settings, gains, alpha: float, B: int, seed: int, repeats: int) -> tuple:
    return ("power_spread", c.fingerprint, key, tuple(float(g) for g in gains), s.beta, s.penalties,
            s.rel_threshold, float(alpha), int(B), int(seed), int(repeats))


def power_spread(c: Collection, key: str, s: Settings, gains, *, alpha: float, B: int, seed: int,
                 repeats: int) -> dict:
    """:func:`_power_spread`, kept for every session (:func:`dashboard.stores.memo`) by the data and every input."""
    page_check(workload.method_work("bootstrap", c.n_runs, c.n_topics, B=int(B), n_metrics=1,
                                    repeats=int(repeats)))
    k = _spread_key(c, key, s, gains, alpha, B, seed, repeats)
    return memo(k, lambda: _power_spread(c, key, k[3], s.beta, s.penalties, s.rel_threshold, float(alpha), int(B),
                                         int(seed), int(repeats)))


def power_spread_known(c: Collection, key: str, s: Settings, gains, *, alpha: float, B: int, seed: int,
                       repeats: int) -> dict | None:
    """:func:`power_spread` if any session has computed it, else None (nothing is computed)."""
    return derived().lookup(_spread_key(c, key, s, gains, alpha, B, seed, repeats))


def tau_against(c: Collection, key: str, s: Settings, gains, ref_gains) -> float:
    """Kendall tau-b between the run rankings of ``key`` under two gain vectors (cached scores)."""
    a = scoring.score(c, key, replace(s, gains=tuple(float(g) for g in ref_gains))).mean(axis=1)
    b = scoring.score(c, key, replace(s, gains=tuple(float(g) for g in gains))).mean(axis=1)
    return ranks.kendall(a, b)

def ratio_gains(K: int, ratio: float) -> list[float]:
    """A geometric gain setting for K levels: level 1 gets 1, level K gets
    ``ratio``, levels between are spaced evenly on a log scale (ascending).

    This is the one-parameter family the "Which gains?" view sweeps: ratio 1
    is 1:1:1 (binary relevance), ratio 3 on three levels is 3:1.73:1. For K = 1
    there is one level and the gain is 1. Each gain is rounded to three significant digits, and the
    rounded values are the ones used: the label a table or chart shows (``100:21.5:4.64:1``) is then
    the setting computed, not an abbreviation of ``100:21.5443:4.64159:1``.

    >>> ratio_gains(4, 100.0), ratio_gains(3, 3.0)
    ([1.0, 4.64, 21.5, 100.0], [1.0, 1.73, 3.0])
    """
    if K <= 1:
        return [1.0]
    return [float(f"{ratio ** ((L - 1) / (K - 1)):.3g}") for L in range(1, K + 1)]


def gain_settings(K: int, ratio: float, current) -> list[tuple[str, str, list[float]]]:
    """(label, family, ascending gains) of every setting the gains view compares:
    the papers' presets that extend to K levels (labelled with the values
    actually used), the geometric family at fixed ratios, the slider's ratio
    and the sidebar's current gains."""
    out: list[tuple[str, str, list[float]]] = []
    seen: dict[str, int] = {}

    def add(family, g):
        lab = state.paper(g)
        if lab in seen:             # one point per distinct setting; it carries every family it belongs to
            i = seen[lab]
            out[i] = (lab, out[i][1] + " + " + family, out[i][2])
            return
        seen[lab] = len(out)
        out.append((lab, family, [float(v) for v in g]))

    for name in state.PRESETS + ("2:1.5:1",):
        g = preset_gains(name, K)
        if g is not None:
            # labelled with the values used: "3:2:1" would misname a setting on 2, 4 or 5 levels
            add("paper preset" + ("" if state.paper(g) == name else f", adapted to {K} levels"), g)
    for r in (2.0, 5.0, 30.0, 100.0):
        add("ratio grid", ratio_gains(K, r))
    add("ratio slider", ratio_gains(K, ratio))
    add("sidebar (current)", list(current))
    return out


def gain_choice_verdict(*args, **kw):
    """The report's "which gains" rule (evalcore.meta.gain_choice_verdict), for the pages: pure, not cached."""
    return _meta.gain_choice_verdict(*args, **kw)


#: The "Which gains?" page draws progress and a Stop button when the settings still to compute are estimated
#: (from the first one's time) to take longer than this (s).
PROGRESS_AFTER_S = 1.0


def power_rows(c: Collection, key: str, s: Settings, settings: list, ref, *, alpha: float, B: int, seed: int,
               repeats: int) -> list[dict]:
    """Per gain setting ``(label, family, gains)``: tau against ``ref`` and the bootstrap power spread
    (:func:`power_spread`), as the "Which gains?" page tabulates them. Settings computed before (by any
    session) come back at once; when the others will take more than :data:`PROGRESS_AFTER_S` (B = 1000 x 10
    repetitions x nine settings: seconds), a progress bar and a Stop button show. Stop leaves the settings not
    yet computed out, their note says so, and a button computes them."""
    ss = st.session_state
    inputs = (c.fingerprint, key, s, tuple(label for label, _, _ in settings), float(alpha), int(B), int(seed),
              int(repeats))
    halted = ss.get("_gv_stopped") == inputs
    kw = {"alpha": alpha, "B": B, "seed": seed, "repeats": repeats}
    todo = sum(power_spread_known(c, key, s, g, **kw) is None for _, _, g in settings)
    box, prog, done, left_out = st.empty(), None, 0, []
    rows = []
    for label, family, g in settings:
        row = {"setting": label, "family": family, "tau": float("nan"), "pct": float("nan"), "sd": float("nan"),
               "min": float("nan"), "max": float("nan"), "note": ""}
        try:
            row["tau"] = tau_against(c, key, s, g, ref)
            pw = power_spread_known(c, key, s, g, **kw)
            if pw is None and halted:
                row["note"] = "not computed: stopped"
                left_out.append(label)
                rows.append(row)
                continue
            if pw is None:
                t0 = time.perf_counter()
                pw = power_spread(c, key, s, g, **kw)
                done += 1
                if prog is None and done < todo and (time.perf_counter() - t0) * (todo - done) > PROGRESS_AFTER_S:
                    with box.container():
                        prog = Progress(f"Discriminative power of {todo} gain settings ...")
                        st.button("Stop", key="gv_stop", icon=":material/stop_circle:",
                                  on_click=guarded(lambda: ss.update(_gv_stopped=inputs)),
                                  help="Stop here: the settings computed so far are shown, the others left out "
                                       "until asked.")
                if prog is not None:
                    prog(done / todo, f"Discriminative power of {todo} gain settings: {done} done ...")
        except ValueError as e:       # a metric that rejects this setting (nERR wants the top gain largest)
            row["note"] = str(e)[:120]
            rows.append(row)
            continue
        rows.append({**row, "pct": pw["mean"], "sd": pw["sd"], "min": pw["min"], "max": pw["max"]})
    box.empty()
    if left_out:
        with box.container():
            st.caption(f"Stopped: the discriminative power of {', '.join(left_out)} was not computed (B = {B}, "
                       f"{repeats} repetitions).")
            st.button("Compute the settings left out", key="gv_resume", icon=":material/refresh:",
                      on_click=guarded(lambda: ss.pop("_gv_stopped", None)))
    return rows
