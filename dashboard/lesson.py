"""The lesson page's helpers: its steps, their navigation and the export of its tables.

The lesson (views/lesson.py) tells Sakai 2007 (003) in four steps a lecturer clicks through; each step is
an address (``?step=N``, session key ``ls_step``). Its tables are drawn with ``st.table`` (large, static text
for a projector) and registered for the view's HTML export as plotly tables (dashboard.export writes every
figure the page registers).
"""
from __future__ import annotations

import pandas as pd
import streamlit as st

from . import state
from .errors import guarded

#: step -> its title (short: the step selector must fit beside the sidebar at 1024 px)
STEPS = {1: "Fig. 3's systems", 2: "Gains flip O", 3: "r_p vs r_1", 4: "On this data"}


def current_step() -> int:
    """The step in the session (from the address), clamped to 1..4 (a bad value opens step 1). Call before
    the step selector is drawn."""
    ss = st.session_state
    try:
        step = int(ss.get("ls_step", 1))
    except (TypeError, ValueError):
        step = 1
    step = step if step in STEPS else 1
    ss["ls_step"] = step
    ss["_ls_last"] = step
    return step


@guarded
def _move(delta: int) -> None:
    st.session_state["ls_step"] = min(max(int(st.session_state.get("ls_step") or 1) + delta, 1), len(STEPS))


@guarded
def _keep() -> None:
    """A click on the selected step deselects it (None): keep the step shown instead."""
    ss = st.session_state
    if ss.get("ls_step") not in STEPS:
        ss["ls_step"] = ss.get("_ls_last", 1)


def navigation() -> int:
    """The step selector; returns the step to draw."""
    step = current_step()
    got = st.segmented_control("Step", list(STEPS), format_func=lambda k: f"{k}. {STEPS[k]}", key="ls_step",
                               on_change=_keep, label_visibility="collapsed")
    return got if got in STEPS else step


def buttons(step: int) -> None:
    """Previous / Next at the foot of a step (callbacks: the address follows)."""
    b1, b2, _ = st.columns([1, 1, 3])
    # keys P and N as well (not while typing in a box): a lecturer steps through without the mouse or Tab
    b1.button("Previous", on_click=_move, args=(-1,), disabled=step == 1, key="ls_prev", icon=":material/arrow_back:",
              shortcut="P", help="Previous step (key P)")
    b2.button("Next", on_click=_move, args=(1,), disabled=step == len(STEPS), key="ls_next",
              icon=":material/arrow_forward:", shortcut="N", help="Next step (key N)")


#: Where a table has no value (003 prints none): an en dash, since st.table reads a lone "-" as a Markdown
#: list item and draws a bullet.
NONE = "\u2013"


def fmt(df: pd.DataFrame, digits: int = 2) -> pd.DataFrame:
    """Numbers as text at ``digits`` decimals, :data:`NONE` where there is none."""
    return df.apply(lambda col: col.map(lambda x: NONE if pd.isna(x) else f"{x:.{digits}f}")
                    if pd.api.types.is_float_dtype(col) else col)


def table(df: pd.DataFrame, label: str, digits: int = 2) -> None:
    """``df`` as a large static table, and registered for the HTML export under ``label``."""
    shown = fmt(df, digits)
    st.table(shown.style.set_properties(**{"font-size": "1.2rem"}))      # large type for a projector
    import plotly.graph_objects as go
    header = [shown.index.name or ""] + [str(c) for c in shown.columns]
    cells = [list(map(str, shown.index))] + [list(map(str, shown[c])) for c in shown.columns]
    fig = go.Figure(go.Table(header={"values": header}, cells={"values": cells}))
    fig.update_layout(title=label)
    state.this_run().setdefault("figs", []).append((label, fig))
