"""Sakai 2007's central claim on the data shown: the verdict box of the Overview, Swap, Bootstrap and Lesson pages.

Sakai 2007 (003) Tables 3-4 find P(+)-measure and O-measure more discriminative than NWRR, and NWRR than RR,
on all four NTCIR data sets. Whether that order holds on the data loaded is computed by
``evalcore.meta.order_claim_verdict`` (:func:`claim_verdict`), strictly (a tie is not support),
over :data:`dashboard.meta_kinds.SPREAD_REPEATS` Monte Carlo repetitions (topics fixed) and
:data:`dashboard.meta_kinds.TOPIC_RESAMPLES` topic samples (another topic set of the same size); the
repetitions and samples themselves are computed by :mod:`dashboard.meta_store`, the claim's tables here.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import streamlit as st

from dashboard import errors, live, meta_store, state, widgets
from dashboard.meta_kinds import SPREAD_REPEATS, TOPIC_B, TOPIC_RESAMPLES
from evalcore import meta as _meta

#: The method's name on screen and the table of 003 it reproduces.
METHODS = {"swap": ("Swap method", "Table 3"), "bootstrap": ("Bootstrap sensitivity", "Table 4")}


def page_params(method: str, c) -> tuple[dict, int, float]:
    """The parameters, B and claim level (confidence or alpha) the Swap / Bootstrap page uses, from the session
    (read with :func:`dashboard.state.value`: on another page they wait outside the session's keys)."""
    v = state.value
    if method == "swap":
        params = {"sampling": v("sw_sampling"), "subset_size": min(int(v("sw_subset")), c.n_topics) or None,
                  "seed": int(v("sw_seed"))}
        return params, int(v("sw_B")), float(v("sw_conf") or 0.95)
    alpha = float(v("bs_alpha"))
    return {"alpha": alpha, "seed": int(v("bs_seed"))}, int(v("bs_B")), alpha


#: Run pairs x topics above which the Overview asks (a button) before checking the claim: the check repeats
#: the swap and bootstrap methods 5 times at the chosen B and over 20 topic samples, seconds on 003-sized
#: data (435 pairs x 50 topics = 21,750) and minutes on 100 runs x 200 topics.
AUTO_LIMIT = 50_000


def comparisons(c) -> int:
    """Run pairs x topics: what the cost of the claim's check grows with."""
    return c.n_runs * (c.n_runs - 1) // 2 * c.n_topics


#: The metrics the claim compares (P+, P, O, NWRR, RR): the verdict reads nothing else.
CLAIM_METRICS = frozenset(m for step in _meta.CLAIM_003 for m in step)
#: the claim in words, spelled as evalcore spells it everywhere (evalcore.meta.CLAIM_003_TEXT)
CLAIM_TEXT = _meta.CLAIM_003_TEXT


def claim_settings(s):
    """``s`` with only the chosen metrics the claim compares (all of ``s`` when it chose none of them).

    The verdict (evalcore.meta.order_claim_verdict) reads the claim's metrics and names the missing ones;
    the repetitions and topic samples of the other chosen metrics (Q-measure, nDCG, AP ...) were computed
    only to be dropped: on a gain move two of the five graded defaults, a large share of an Overview move's
    CPU (docs/benchmarks.md section 16.1). Each metric's results are kept apart
    (dashboard.meta_kinds.PER_METRIC_KINDS), so the Swap and Bootstrap pages' spread charts still find these
    parts and compute the rest."""
    keep = tuple(m for m in s.metrics if state.expand(m, s.cutoff) in CLAIM_METRICS)
    return replace(s, metrics=keep) if keep else s


def compute(method: str, c, s, params: dict, B: int, level: float) -> dict | None:
    """The verdict of Sakai 2007's claim for one method, with ``B_shown``/``B_chosen`` of its repetitions and
    ``topics_pending`` added; None if the method could not run.

    The repetitions are live, as every meta chart (quick pass first); the topic samples never hold up the
    page: when not computed yet, they are computed after the page is drawn (live.finish_live, with
    progress; any setting moved cancels them) and the page reruns with them.
    """
    name = METHODS[method][0]
    s = claim_settings(s)
    got: dict = {}
    R = SPREAD_REPEATS
    live.live_meta(f"{method}_spread", c, s, {**params, "repeats": R}, B, f"{name}, {R} repetitions",
                      lambda res, Bs, Bc: got.update(seeds=res, B_shown=Bs, B_chosen=Bc))
    if "seeds" not in got or "per_repeat" not in got["seeds"]:
        return None
    tkind, tparams = f"{method}_topics", {**params, "resamples": TOPIC_RESAMPLES}
    what = f"{name}, {TOPIC_RESAMPLES} topic samples"
    try:
        topics = meta_store.meta_lookup(tkind, c, s, tparams, TOPIC_B)
    except ValueError:
        topics = None
    if topics is None:
        status = st.empty()
        status.caption(f"{what} at B = {TOPIC_B}: computed after the page is drawn ...")
        state.this_run().setdefault("live_pending", []).append(
            (tkind, c, s, dict(tparams), TOPIC_B, what, status))
    v = claim_verdict(method, got["seeds"]["per_repeat"],
                      None if topics is None else topics["frames"]["per_resample"], level)
    return {**v, "method": method, "level": level, "B_shown": got["B_shown"], "B_chosen": got["B_chosen"],
            "topics_pending": topics is None,
            "topics_stopped": topics is None and live.stopped(tkind, c, s, tparams, TOPIC_B) is not None}


#: The figure Sakai 2007's order claim is read from, per method: (column, the summary key that selects the row)
CLAIM_FIGURES = {"swap": ("pct_comparisons", "confidence"), "bootstrap": ("pct_significant", "alpha")}


def claim_wide(frame: pd.DataFrame, index: str, method: str, level: float) -> pd.DataFrame:
    """Rows: repetitions (``index`` = "repeat") or topic samples ("resample"); columns: metrics; values: the
    method's discriminative-power figure at ``level`` (the confidence of the swap, the alpha of the bootstrap)."""
    fig, by = CLAIM_FIGURES[method]
    d = frame[np.isclose(frame[by].astype(float), float(level))]
    cols = list(dict.fromkeys(d["metric"]))
    rows = np.unique(d[index].to_numpy())
    i = np.searchsorted(rows, d[index].to_numpy())
    j = pd.Index(cols).get_indexer(d["metric"])
    cell = i * len(cols) + j
    if len(np.unique(cell)) < len(cell):         # a (row, metric) twice: pandas' "first non-missing" rule
        w = d.pivot_table(index=index, columns="metric", values=fig, aggfunc="first", dropna=False)
        return w.reindex(columns=cols)
    # one value per cell (every method writes one row per repetition / sample and metric): placed directly,
    # as pivot_table would place it (rows sorted, a missing cell NaN) at a sixth of its CPU, four times a move
    out = np.full((len(rows), len(cols)), np.nan)
    out[i, j] = d[fig].to_numpy(dtype=float)
    return pd.DataFrame(out, index=pd.Index(rows, name=index), columns=pd.Index(cols, name="metric"))


def claim_verdict(method: str, per_repeat: pd.DataFrame, per_resample: pd.DataFrame | None, level: float) -> dict:
    """evalcore.meta.order_claim_verdict of Sakai 2007's claim (Tables 3-4) on one method's repetitions and topic
    samples, as the pages show it."""
    what = "% comparisons" if method == "swap" else "% of pairs significant"
    topics = None if per_resample is None else claim_wide(per_resample, "resample", method, level)
    return _meta.order_claim_verdict(claim_wide(per_repeat, "repeat", method, level), _meta.CLAIM_003,
                                     topics=topics, what=what)


def headline(v: dict, *, stale: bool = False) -> str:
    """One bold line: the method and the verdict in a word (the claim itself opens the text below it);
    ``stale``: checked at earlier settings, said so."""
    name, table = METHODS[v["method"]]
    word = {"holds": "holds", "mostly": "holds in most repetitions", "fails": "does not hold",
            "untestable": "cannot be checked"}[v["status"]]
    if stale:
        word = {"holds": "held", "mostly": "held in most repetitions", "fails": "did not hold",
                "untestable": "could not be checked"}[v["status"]]
        return f"**At the settings checked, Sakai 2007's claim ({table}, {name.lower()}) {word}.**"
    return f"**Sakai 2007's claim ({table}, {name.lower()}) {word} here.**"


def show(v: dict | None, *, compact: bool = False, stale: bool = False) -> None:
    """Draw one verdict: a coloured box (green: holds; blue: holds in most repetitions, or cannot be checked;
    yellow: does not hold - a finding about the data, not an error of the app); ``stale``: checked at earlier
    settings (the headline says so, in the past tense)."""
    if v is None:
        return
    box = {"holds": st.success, "mostly": st.info, "fails": st.warning, "untestable": st.info}[v["status"]]
    lvl = (f"confidence {v['level']:.0%}" if v["method"] == "swap" else f"alpha = {v['level']:g}")
    how = (f"Checked strictly (a tie is not support) at {lvl}: {SPREAD_REPEATS} Monte Carlo repetitions "
           f"at {live.b_title(v['B_shown'], v['B_chosen'])} (topics fixed), and "
           f"{TOPIC_RESAMPLES} topic samples at B = {TOPIC_B} each.")
    text = v["text"] + (" Topic samples: stopped (the button below computes them)." if v.get("topics_stopped") else
                        " Topic samples: being computed." if v.get("topics_pending") else "")
    box(headline(v, stale=stale) + "  \n" + text + ("" if compact else "  \n" + how), icon=None)
    if compact:
        widgets.caption(how)


def _cached(method: str, c, s, params: dict, B: int) -> bool:
    """Whether both parts of one method's check (the repetitions at the chosen B and the topic samples) are
    finished for these settings (by any session): then drawing the verdict costs nothing."""
    s = claim_settings(s)
    return (not meta_store.meta_missing(f"{method}_spread", c, s, {**params, "repeats": SPREAD_REPEATS}, B)
            and not meta_store.meta_missing(f"{method}_topics", c, s,
                                            {**params, "resamples": TOPIC_RESAMPLES}, TOPIC_B))


def overview(box, c, s) -> None:
    """The Overview's verdict boxes (drawn into ``box``, at the top of the page), checked when asked.

    The check repeats the swap and bootstrap methods :data:`~dashboard.meta_kinds.SPREAD_REPEATS` times at the
    chosen B and over :data:`~dashboard.meta_kinds.TOPIC_RESAMPLES` topic samples: when it ran on every gain
    move it was most of an Overview move's CPU (docs/benchmarks.md section 16.1), which one server cannot pay
    for a class. So:

    - the first view of a session checks it by itself (up to :data:`AUTO_LIMIT` run pairs x topics; every
      session at the same data and settings shares the result, so a class at the default gains pays once);
    - after a move, the verdicts are drawn at once if any session has checked these settings; otherwise the
      last verdicts stay on screen, labelled with the settings they were checked at, beside a button that
      checks the current ones.
    """
    ss = st.session_state
    params = {m: page_params(m, c) for m in ("bootstrap", "swap")}
    # what the verdicts depend on: the data, the claim's metrics under the settings, each page's parameters,
    # B and level
    key = (c.fingerprint, claim_settings(s),
           tuple((m, tuple(sorted(p.items())), B, lvl) for m, (p, B, lvl) in params.items()))
    if ss.pop("_ov_claim_ask", False):
        ss["_ov_claim_key"] = key
    if "_ov_claim_key" not in ss and comparisons(c) <= AUTO_LIMIT:
        ss["_ov_claim_key"] = key                     # the session's first view checks itself
    if ss.get("_ov_claim_key") == key or all(_cached(m, c, s, *params[m][:2]) for m in params):
        widgets.markdown("**Sakai 2007's claim, repeated** (the verdicts at the top of the page; Monte Carlo "
                         "repetitions and topic samples)")
        verdicts = [compute(m, c, s, *params[m]) for m in params]
        ss["_ov_claim_key"] = key
        ss["_ov_claim_shown"] = {"key": key, "line": widgets.settings_line(s, c), "verdicts": verdicts}
        with box:
            for v in verdicts:
                show(v)
        return
    last = ss.get("_ov_claim_shown")
    stale = last is not None and last["key"][0] == c.fingerprint
    with box:          # the button first: on a 1024 x 768 screen the verdicts below it reach the fold
        if stale:
            widgets.caption(f"Checked at: {last['line']}. **The settings have changed since**; the check "
                            "takes seconds, so it runs when asked.")
            label = "Check Sakai 2007's claim again at the current settings"
        else:
            label = f"Check Sakai 2007's claim {CLAIM_TEXT} on this data"
            widgets.caption(f"{comparisons(c):,} run pairs x topics: the check ({SPREAD_REPEATS} repetitions "
                            f"of the swap and bootstrap methods at the chosen B, {TOPIC_RESAMPLES} topic "
                            "samples) takes a while here, so it runs when asked. The Swap and Bootstrap pages "
                            "check it too.")
        st.button(label, key="ov_claim_btn", on_click=errors.guarded(lambda: ss.update(_ov_claim_ask=True)),
                  icon=":material/fact_check:")
        if stale:
            for v in last["verdicts"]:
                show(v, compact=True, stale=True)
