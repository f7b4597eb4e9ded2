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


#: "B x 10" sets ten times the samples at once up to this B; above it, up to the widget's maximum, it asks first
#: (a refinement ten times longer than the last, minutes on a class's data), and a long refinement can always be
#: stopped (:func:`finish_live`). The maximum itself (100,000, evalcore.settings.WIDGET_BOUNDS) is refused.
MORE_DIRECT_B = 10_000


def b_controls(what: str, B_key: str, seed_key: str, B_max: int = 100000) -> None:
    """B and seed inputs, with "B x 10" (ask for more precision) and "new seed"
    buttons; every value is stated again on the result. "B x 10" above :data:`MORE_DIRECT_B` asks first."""
    ss = st.session_state
    ask = f"_{B_key}_ask"

    @errors.guarded
    def _more():
        new = min(int(ss[B_key]) * 10, B_max)
        if new > MORE_DIRECT_B:
            ss[ask] = new                  # a box below asks first
        else:
            ss[B_key] = new

    @errors.guarded
    def _confirm(new: int):
        ss[B_key] = new
        ss.pop(ask, None)

    @errors.guarded
    def _new_seed():
        ss[seed_key] = (int(ss[seed_key]) + 1) % (10**6 + 1)

    B_now = int(ss[B_key])
    c1, c2, c3, c4 = st.columns([1.2, 1, 0.9, 0.9], vertical_alignment="bottom")
    c1.number_input(f"{what} B", min_value=10, max_value=B_max, step=100, key=B_key,
                    help=f"Number of bootstrap samples / trials. A quick pass with B = {QUICK_B} is shown first "
                         f"when the chosen B takes longer than {BUDGET_S:g} s of CPU; the chosen B replaces it, "
                         "with progress and a Stop button.")
    c2.number_input("seed", min_value=0, max_value=10**6, step=1, key=seed_key)
    c3.button("B x 10", key=f"{B_key}_more", on_click=_more, width="stretch",
              help=(f"B is at its maximum, {B_max:,}: larger B is not offered here (evalcore's command line "
                    "sizes larger runs)." if B_now >= B_max else
                    f"Ask for ten times the samples: tighter estimates, ten times slower (above B = "
                    f"{MORE_DIRECT_B:,} it asks first)."), disabled=B_now >= B_max)
    c4.button("new seed", key=f"{seed_key}_next", on_click=_new_seed, width="stretch",
              help="Draw new random samples: how much do the results move?")
    new = ss.get(ask)
    if new is not None and new > B_now:
        with st.container(border=True):
            st.markdown(f"**B = {new:,}?** Ten times the samples of B = {B_now:,}, so about ten times as long as "
                        f"B = {B_now:,} took: minutes on larger data, while the page refines (it shows progress "
                        "and a Stop button).")
            y, n, _ = st.columns([1.4, 1.4, 2], vertical_alignment="center")
            y.button(f"Compute B = {new:,}", key=f"{B_key}_ask_yes", on_click=_confirm, args=(new,),
                     icon=":material/play_arrow:")
            n.button(f"Keep B = {B_now:,}", key=f"{B_key}_ask_no",
                     on_click=errors.guarded(lambda: ss.pop(ask, None)), icon=":material/close:")
    elif new is not None:
        ss.pop(ask, None)                  # B changed another way meanwhile: nothing left to ask


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
    halted = stopped(kind, c, s, params, B) is not None
    quick_text = (f"{what}: **quick pass, B = {qB}** on screen; refining to the chosen B = {B} "
                  f"(about {est:.1f} s of CPU) ..." if not halted else
                  f"{what}: **quick pass, B = {qB}** on screen; refining to the chosen B = {B} was stopped.")
    widgets.note("caption", text=quick_text)
    status.caption(quick_text)
    draw(quick["frames"], qB, qB if halted else B)       # stopped: the chart says the B it shows, no more
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
    """Note when a chart was drawn (benchmarks/bench_dashboard.py --mode pages reads it: time to first chart)."""
    import time
    st.session_state.setdefault("_live_log", []).append((time.perf_counter(), kind, B_shown, B_chosen))
    del st.session_state["_live_log"][:-50]


def _signature(kind: str, c, s, params: dict, B: int) -> tuple:
    """What one refinement computes: the method, the data, the settings, its parameters and B."""
    return (kind, c.fingerprint, s, tuple(sorted((k, repr(v)) for k, v in params.items())), int(B))


def stopped(kind: str, c, s, params: dict, B: int) -> dict | None:
    """How far a refinement got when Stop was pressed (``frac``, ``seconds``), or None if it was not stopped."""
    return (st.session_state.get("_live_stopped") or {}).get(_signature(kind, c, s, params, B))


@errors.guarded
def _stop(sigs: list, running: tuple) -> None:
    """The Stop button: the refinement running (its run is interrupted by this click's rerun) and the page's
    others after it are not started again at these settings until asked; how far the running one got is kept
    for the page to say."""
    import time
    ss = st.session_state
    run = ss.get("_live_running") or {}
    seconds = time.perf_counter() - run["t0"] if "t0" in run else run.get("seconds", 0.0)
    stopped = ss.setdefault("_live_stopped", {})
    for sig in sigs:
        stopped[sig] = ({"frac": run.get("frac", 0.0), "seconds": seconds} if sig == running else
                        {"frac": None, "seconds": 0.0})


@errors.guarded
def _resume(sig: tuple) -> None:
    (st.session_state.get("_live_stopped") or {}).pop(sig, None)


def finish_live() -> None:
    """Compute the chosen B of every quick pass drawn in this run, with
    progress and a Stop button, then rerun so the charts show it. Call at the end of a page.

    Runs in the script thread (no threads of our own): moving any setting
    interrupts it at the next progress update, and the rerun starts over. Stop interrupts it the same way and
    keeps it from starting again at these settings: the quick pass stays on screen, said so, beside a button
    that refines again.
    """
    pending = state.this_run().pop("live_pending", [])
    if not pending:
        return
    ss = st.session_state
    ran = False
    sigs = [_signature(kind, c, s, params, B) for kind, c, s, params, B, *_ in pending]
    for i, (sig, (kind, c, s, params, B, what, status)) in enumerate(zip(sigs, pending, strict=True)):
        halted = (ss.get("_live_stopped") or {}).get(sig)
        with status.container():
            if halted is not None:
                when = ("before it started" if halted["frac"] is None else
                        f"at {halted['frac']:.0%} (after {halted['seconds']:.0f} s)")
                st.caption(f"{what}: refining to the chosen B = {B:,} was **stopped** {when}: the quick pass stays "
                           "on screen.")
                st.button(f"Refine to B = {B:,} again", key=f"_live_resume_{i}", on_click=_resume, args=(sig,),
                          icon=":material/refresh:")
                continue
            prog = Progress(f"Refining {what} to B = {B:,} ...")
            st.button("Stop", key=f"_live_stop_{i}", on_click=_stop, args=(sigs[i:], sig),
                      icon=":material/stop_circle:",
                      help="Stop this computation and the page's others still to come; the quick passes stay on "
                           "screen, and a button beside each refines it again.")
            ss["_live_running"] = prog.state
            try:
                meta_store.meta_compute(kind, c, s, params, B, progress=prog)
            except ValueError as e:
                st.error(f"{what} with B = {B} could not run: {safe.md_lines(e)}", icon=":material/error:")
                return
            finally:
                prog.done()
                ss.pop("_live_running", None)
            ran = True
    if ran:
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
