"""The shared sidebar and small reusable page pieces.

Widgets use the session keys of :mod:`dashboard.state` directly, so their
values survive page changes and land in the URL.
"""
from __future__ import annotations

import pandas as pd
import streamlit as st

from evalcore.gains import level_label

from . import cached, state

DATASET_LABELS = {"sim": "Simulated collection", "examples": "Papers' worked examples", "upload": "Uploaded files"}


def sidebar(c) -> None:
    """Dataset, gains (with presets), beta, penalties, cutoff, threshold, metrics, top N, reset."""
    ss = st.session_state
    K = c.max_level
    names = state.level_names(K, c.level_names)
    with st.sidebar:
        options = ["sim", "examples"] + (["upload"] if ss.get("uploaded") is not None else [])
        st.selectbox("Dataset", options, key="dataset", format_func=DATASET_LABELS.get,
                     help="Upload files or change the simulation on the Data page.")
        st.caption(f"{c.n_runs} runs · {c.n_topics} topics · levels {' '.join(names[::-1])}")

        st.markdown("**Gain per relevance level**")
        rows = [st.columns(3), st.columns([1, 1.25])]
        slots = [rows[0][0], rows[0][1], rows[0][2], rows[1][0], rows[1][1]]
        for slot, name in zip(slots, state.PRESETS):
            g = cached.preset_gains(name, K)
            shown = level_label(g) if g else name          # the values used on this collection's K levels
            slot.button(shown, key=f"preset_{name}", on_click=state.apply_gains, args=(g or [],),
                               disabled=g is None, width="stretch",
                               help=f"Set the gains to the papers' {name} mapped onto {K} levels: {shown} "
                                    "(highest level first; evalcore.gains.map_levels)")
        for L in range(K, 0, -1):
            st.slider(f"{names[L - 1]} (level {L})", state.GAIN_MIN, state.GAIN_MAX, step=state.GAIN_STEP,
                      key=f"g{L}", format="%.1f")
        st.slider("beta (weight of gain vs. rank)", *state.WIDGET_BOUNDS["beta"], step=0.1, key="beta", format="%.1f",
                  help="Q, R, O, P and P+ measures: BR(r) = (beta·cg(r) + count(r)) / (beta·cg_I(r) + r). "
                       "beta = 0 turns Q-measure into AP.")
        with st.expander("NWRR penalties", expanded=False):
            st.caption("WRR/NWRR: a level-L document at rank r scores 1/(r - 1/penalty(L)); each penalty > 1 "
                       "and none larger than the penalty of a lower level (003 Sec. 3.2; otherwise NWRR is left "
                       "out).")
            for L in range(K, 0, -1):
                st.number_input(f"penalty {names[L - 1]} (level {L})", min_value=1.01, max_value=100.0,
                                step=0.5, key=f"p{L}", format="%.2f")
        c1, c2 = st.columns(2)
        c1.number_input("cutoff l", min_value=1, max_value=1000, step=1, key="cutoff",
                        help="Depth l of nDCG@l, nCG@l, nERR@l, P@l and Hit@l.")
        c2.radio("binary threshold", ["relaxed", "rigid"], key="threshold",
                 help="AP, RR, R-Prec, P@l: relaxed counts every relevant level, rigid only levels >= 2.",
                 disabled=K < 2)
        st.multiselect("Metrics", list(cached.METRIC_KEYS), key="metrics",
                       help="Metrics shown on every page (cutoff metrics use l).")
        c1, c2 = st.columns([1, 1.4])
        c1.number_input("top N runs", min_value=0, max_value=1000, step=1, key="top_n",
                        help="Analyse only the best N runs (0 = all runs).")
        c2.selectbox("by", list(cached.METRIC_KEYS), key="top_by")
        st.divider()
        st.button("Reset all settings", on_click=state.reset, width="stretch", icon=":material/restart_alt:")
        st.caption("The address bar holds every setting: copy it to share this view.")


def metric_select(label: str, key: str, s: state.Settings, default: str | None = None, help: str | None = None) -> str:
    """A selectbox over the current metric keys whose value lives under ``key``."""
    keys = list(s.metric_keys)
    ss = st.session_state
    cur = ss.get(key)
    if cur not in keys:
        base_match = [k for k in keys if k.partition("@")[0] == str(cur).partition("@")[0]]
        ss[key] = base_match[0] if base_match else (default if default in keys else keys[0])
    return st.selectbox(label, keys, key=key, help=help)


def number(x, digits: int = 4) -> str:
    return "" if pd.isna(x) else f"{x:.{digits}f}"


def table(df: pd.DataFrame, digits: int = 4, height: int | None = None, **kw) -> None:
    """A sortable dataframe with floats at ``digits`` decimals."""
    cfg = {c: st.column_config.NumberColumn(format=f"%.{digits}f")
           for c in df.columns if pd.api.types.is_float_dtype(df[c])}
    args = dict(column_config=cfg, width="stretch")
    if height is not None:
        args["height"] = height
    args.update(kw)
    st.dataframe(df, **args)


def settings_line(s: state.Settings, c) -> str:
    names = state.level_names(s.K, c.level_names)
    gains = " : ".join(f"{names[L - 1]}={s.gains[L - 1]:g}" for L in range(s.K, 0, -1))
    return (f"gains {gains} · beta {s.beta:g} · cutoff l = {s.cutoff} · "
            f"{'rigid' if s.rel_threshold == 2 else 'relaxed'} threshold")


def long_computation(slot: str, key: tuple, label: str, compute, what: str):
    """Run ``compute(progress)`` only when the button is pressed; keep the result
    for these exact settings in the session (and in cached.py's cache).

    Returns the result for ``key`` or None (with a hint why nothing is shown).
    """
    ss = st.session_state
    b, note = st.columns([1, 3], vertical_alignment="center")
    pressed = b.button(label, type="primary", key=f"{slot}_run", icon=":material/play_arrow:")
    note.caption("Runs on the press, with a progress bar; Stop (top right) or any change of a setting cancels it.")
    store = f"_res_{slot}"
    if pressed:
        prog = cached.Progress(f"{what} ...")
        try:
            res = compute(prog)
        except ValueError as e:
            st.error(f"{what} could not run with these settings: {e}", icon=":material/error:")
            return None
        finally:
            prog.done()
        ss[store] = (key, res)
    stored = ss.get(store)
    if stored is not None and stored[0] == key:
        return stored[1]
    if stored is not None:
        st.info(f"The data or settings changed since the last run. Press **{label}** to recompute "
                "(results for settings used before come back instantly).", icon=":material/refresh:")
    else:
        st.info(f"Press **{label}** to start; the result is kept for these settings and seed.",
                icon=":material/touch_app:")
    return None


def stored_result(slot: str, key: tuple):
    stored = st.session_state.get(f"_res_{slot}")
    return stored[1] if stored is not None and stored[0] == key else None
