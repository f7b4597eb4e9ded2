"""Live meta-evaluation on the pages: a quick pass first, then the chosen B, with no button.

A resampling chart is drawn from a finished result when any session has one (:mod:`dashboard.meta_store`);
otherwise a quick pass at :data:`QUICK_B` is drawn, and the chosen B is computed straight away when it is
estimated to fit :data:`BUDGET_S`, else after the page is drawn (:func:`finish_live`, with progress; any
setting moved cancels it). Also the B and seed controls every resampling page shows, and the Overview's
charts on request while the server is busy (:func:`discriminative_power`).
"""
from __future__ import annotations

import streamlit as st

from evalcore import figures

from . import activity, errors, limits, meta_store, safe, state, widgets
from .progress import Progress

#: Quick pass size and the interactive budget (CPU seconds) a full-B run must
#: fit to be computed before the first chart: the budget keeps a slider move within the live pages'
#: target (docs/benchmarks.md section 8).
QUICK_B = 100
BUDGET_S = 0.3


def b_controls(what: str, B_key: str, seed_key: str, B_max: int = 100000) -> None:
    """B and seed inputs, with "B x 10" (ask for more precision) and "new seed"
    buttons; every value is stated again on the result."""
    ss = st.session_state

    @errors.guarded
    def _more():
        ss[B_key] = min(int(ss[B_key]) * 10, B_max)

    @errors.guarded
    def _new_seed():
        ss[seed_key] = (int(ss[seed_key]) + 1) % (10**6 + 1)

    c1, c2, c3, c4 = st.columns([1.2, 1, 0.9, 0.9], vertical_alignment="bottom")
    c1.number_input(f"{what} B", min_value=10, max_value=B_max, step=100, key=B_key,
                    help=f"Number of bootstrap samples / trials. A quick pass with B = {QUICK_B} is shown first "
                         f"when the chosen B takes longer than {BUDGET_S:g} s of CPU; the chosen B replaces it.")
    c2.number_input("seed", min_value=0, max_value=10**6, step=1, key=seed_key)
    c3.button("B x 10", key=f"{B_key}_more", on_click=_more, width="stretch",
              help="Ask for ten times the samples: tighter estimates, slower.", disabled=int(ss[B_key]) >= B_max)
    c4.button("new seed", key=f"{seed_key}_next", on_click=_new_seed, width="stretch",
              help="Draw new random samples: how much do the results move?")


def live_meta(kind: str, c, s: state.Settings, params: dict, B: int, what: str, draw) -> dict | None:
    """Draw ``kind``'s result for the current data and settings, with no button.

    1. The chosen B already computed (by any session): drawn at once.
    2. Otherwise, if the chosen B took at most :data:`BUDGET_S` on this data
       before (for the metrics it must recompute), it is computed straight away.
    3. Otherwise a quick pass (B = QUICK_B) is computed; if the chosen B is
       estimated to fit :data:`BUDGET_S` it is computed straight away and
       drawn instead; if not, the quick pass is drawn, stated as such, and
       the chosen B is computed after the rest of the page is drawn (with a
       progress bar in place of the status line; any setting moved cancels
       it), then the page reruns and draws it (:func:`finish_live`).

    ``draw(frames, B_shown, B_chosen)`` draws the result. Returns the result drawn or None.
    """
    B = int(B)
    status = st.empty()
    try:
        limits.meta_check(kind, c, s, params, B)      # sized before any pass (docs/reliability.md, "Work products")
        res = meta_store.meta_lookup(kind, c, s, params, B)
        known = meta_store.meta_known_cost(kind, c, s, params, B) if res is None else None
        if known is not None and known <= BUDGET_S:      # measured before on this data: no quick pass needed
            res = meta_store.meta_compute(kind, c, s, params, B)
        if res is None:
            qB = min(B, QUICK_B)
            quick = meta_store.meta_compute(kind, c, s, params, qB)
            if qB == B:
                res = quick
            elif meta_store.meta_estimate(kind, c, s, params, B, quick) <= BUDGET_S:
                res = meta_store.meta_compute(kind, c, s, params, B)
    except ValueError as e:
        status.error(f"{what} cannot run with these settings: {safe.md_lines(e)}", icon=":material/error:")
        return None
    if res is not None:
        widgets.note("caption", text=f"{what}: B = {B} (chosen) - the result on screen uses B = {B}.")
        status.caption(f"{what}: B = {B} (chosen) - the result on screen uses B = {B}.")
        draw(res["frames"], B, B)
        _drawn(kind, B, B)
        return res
    est = meta_store.meta_estimate(kind, c, s, params, B, quick)
    quick_text = (f"{what}: **quick pass, B = {qB}** on screen; refining to the chosen B = {B} "
                  f"(about {est:.1f} s of CPU) ...")
    widgets.note("caption", text=quick_text)
    status.caption(quick_text)
    draw(quick["frames"], qB, B)
    _drawn(kind, qB, B)
    state.this_run().setdefault("live_pending", []).append((kind, c, s, dict(params), B, what, status))
    return quick


def discriminative_power(c, s: state.Settings, jobs: list, ask_box) -> None:
    """The Overview's bootstrap and swap charts: live, or on request while the server is busy.

    ``jobs``: ``(kind, params, B, what, draw, column)`` each; ``draw(frames, B_shown, B_chosen, stale="")``.
    While at most ``EVALCORE_LIVE_RESAMPLING_SESSIONS`` sessions are active (:mod:`dashboard.activity`), and
    on a session's first view of the data (a new upload too), each is computed as :func:`live_meta` does.
    Otherwise a move does not compute them: a result any session has computed at the current settings is drawn
    at once; if there is none, the last one this session drew on this data stays on screen, labelled with the
    settings it was computed at, and a button (in ``ask_box``) computes the current ones.
    """
    ss = st.session_state
    try:
        limit = activity.live_sessions()
    except ValueError as e:                   # the operator's setting: said on the page, the default used
        st.warning(f"{safe.md_lines(e)}. Using the default, {activity.DEFAULT_LIVE}.", icon=":material/warning:")
        limit = activity.DEFAULT_LIVE
    live, n_active = activity.resampling_live(limit)
    shown = ss.get("_ov_dp_shown")
    if shown is not None and shown.get("fingerprint") != c.fingerprint:
        shown = None                                  # other data: nothing earlier to show
    asked = ss.pop("_ov_dp_ask", False)
    compute = live or asked or shown is None          # the session's first view of this data computes by itself
    line = widgets.settings_line(s, c)
    kept = {"fingerprint": c.fingerprint, **({} if shown is None else {k: shown[k] for k in shown
                                                                       if k != "fingerprint"})}
    waiting = []
    for kind, params, B, what, draw, col in jobs:
        with col:
            if compute:
                res = live_meta(kind, c, s, params, B, what, draw)
            else:
                try:
                    res = meta_store.meta_lookup(kind, c, s, params, B)
                except ValueError:
                    res = None
                if res is not None:
                    st.caption(f"{what}: B = {B}, already computed at these settings (by this or another session).")
                    draw(res["frames"], B, B)
                    _drawn(kind, B, B)
            if res is None and not compute:
                waiting.append(what)
                last = (shown or {}).get(kind)
                if last is None:
                    st.info(f"{what}: computed when asked (the button above).", icon=":material/pending:")
                else:
                    draw(last["frames"], last["B"], last["B"],
                         stale=f"Computed at: {last['line']}. **The settings have changed since**: the button "
                               "above computes this chart for the current ones.")
            elif res is not None:
                f = res["frames"]
                kept[kind] = {"frames": {"summary": f["summary"], "alpha": params.get("alpha"),
                                         "sampling": params.get("sampling")},
                              "B": int(res.get("B", B)), "line": line}
    ss["_ov_dp_shown"] = kept
    if waiting:
        with ask_box:
            st.button("Compute the bootstrap and swap charts for the current settings", key="ov_dp_btn",
                      icon=":material/calculate:",
                      on_click=errors.guarded(lambda: ss.update(_ov_dp_ask=True)))
            charts = f"the {' and '.join(w.lower() for w in waiting)} charts"
            why = (f"This server computes {charts} when asked (`{activity.ENV}` = 0), not at every move."
                   if limit == 0 else
                   f"{n_active} sessions have used this server in the last {activity.WINDOW_S:.0f} s, more than "
                   f"{limit} (`{activity.ENV}`): {charts} are computed when asked, not at every move, so that "
                   "everyone's sliders stay fast.")
            widgets.caption(why + " A result any session has computed at these settings is shown at once.")


def _drawn(kind: str, B_shown: int, B_chosen: int) -> None:
    """Note when a chart was drawn (benchmarks/bench_app.py reads it: time to first chart)."""
    import time
    st.session_state.setdefault("_live_log", []).append((time.perf_counter(), kind, B_shown, B_chosen))
    del st.session_state["_live_log"][:-50]


def finish_live() -> None:
    """Compute the chosen B of every quick pass drawn in this run, with
    progress, then rerun so the charts show it. Call at the end of a page.

    Runs in the script thread (no threads of our own): moving any setting
    interrupts it at the next progress update, and the rerun starts over.
    """
    pending = state.this_run().pop("live_pending", [])
    if not pending:
        return
    for kind, c, s, params, B, what, status in pending:
        with status.container():
            prog = Progress(f"Refining {what} to B = {B} ...")
            try:
                meta_store.meta_compute(kind, c, s, params, B, progress=prog)
            except ValueError as e:
                st.error(f"{what} with B = {B} could not run: {safe.md_lines(e)}", icon=":material/error:")
                return
            finally:
                prog.done()
    st.rerun()


def b_title(B_shown: int, B_chosen: int) -> str:
    """The B statement every meta chart carries."""
    if B_shown == B_chosen:
        return f"B = {B_chosen}"
    return f"quick pass: B = {B_shown} (refining to B = {B_chosen})"


def spread_chart(res: dict, figure: str, where: dict, *, y_title: str, what: str, repeats: int, seed: int,
                 B_shown: int, B_chosen: int, key: str, note: str = "") -> None:
    """The Monte Carlo spread of one summary figure (evalcore.meta.repeat's ``spread`` frame, filtered by
    ``where``, e.g. ``{"confidence": 0.95}``): a bar per metric with +-1 sd and min-max, and its caption."""
    sp = res["spread"]
    d = sp[sp["figure"] == figure]
    for col, val in where.items():
        d = d[d[col] == val]
    widgets.chart(figures.spread_bars(d, y_title=y_title, percent=True,
                                      title=f"{what} over {repeats} repetitions, {b_title(B_shown, B_chosen)} each"),
                  width="stretch", key=key)
    widgets.caption(f"Bar: mean over {repeats} independent repetitions (seeds derived from seed {seed}; "
                    f"repetition 1 is the run above); error bar: +-1 sd; dotted line: min-max.{note}")
