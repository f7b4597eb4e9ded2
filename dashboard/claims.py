"""003's central claim on the data shown: the verdict box of the Overview, Swap, Bootstrap and Lesson pages.

Sakai 2007 (003) Tables 3-4 find P(+)-measure and O-measure more discriminative than NWRR, and NWRR than RR,
on all four NTCIR data sets. Whether that order holds on the data loaded is computed by
``evalcore.meta.order_claim_verdict`` (through ``cached.claim_verdict``), strictly (a tie is not support),
over :data:`cached.SPREAD_REPEATS` Monte Carlo repetitions (topics fixed) and
:data:`cached.TOPIC_RESAMPLES` topic samples (another topic set of the same size). Nothing is computed here.
"""
from __future__ import annotations

import streamlit as st

from dashboard import cached, widgets

#: The method's name on screen and the table of 003 it reproduces.
METHODS = {"swap": ("Swap method", "Table 3"), "bootstrap": ("Bootstrap sensitivity", "Table 4")}


def page_params(method: str, c, ss) -> tuple[dict, int, float]:
    """The parameters, B and claim level (confidence or alpha) the Swap / Bootstrap page uses, from the session."""
    if method == "swap":
        params = {"sampling": ss["sw_sampling"], "subset_size": min(int(ss["sw_subset"]), c.n_topics) or None,
                  "seed": int(ss["sw_seed"])}
        return params, int(ss["sw_B"]), float(ss.get("sw_conf") or 0.95)
    alpha = float(ss["bs_alpha"])
    return {"alpha": alpha, "seed": int(ss["bs_seed"])}, int(ss["bs_B"]), alpha


def compute(method: str, c, s, params: dict, B: int, level: float) -> dict | None:
    """The verdict of 003's claim for one method (live: quick pass first, as every meta chart), with
    ``B_shown``/``B_chosen`` of its repetitions added; None if the method could not run."""
    name = METHODS[method][0]
    got: dict = {}
    R = cached.SPREAD_REPEATS
    widgets.live_meta(f"{method}_spread", c, s, {**params, "repeats": R}, B, f"{name}, {R} repetitions",
                      lambda res, Bs, Bc: got.update(seeds=res, B_shown=Bs, B_chosen=Bc))
    widgets.live_meta(f"{method}_topics", c, s, {**params, "resamples": cached.TOPIC_RESAMPLES}, cached.TOPIC_B,
                      f"{name}, {cached.TOPIC_RESAMPLES} topic samples",
                      lambda res, Bs, Bc: got.update(topics=res))
    if "seeds" not in got or "per_repeat" not in got["seeds"]:
        return None
    topics = got.get("topics", {}).get("per_resample")
    v = cached.claim_verdict(method, got["seeds"]["per_repeat"], topics, level)
    return {**v, "method": method, "level": level, "B_shown": got["B_shown"], "B_chosen": got["B_chosen"]}


def headline(v: dict) -> str:
    """One bold line: the claim, the method, and the verdict in a word."""
    name, table = METHODS[v["method"]]
    word = {"holds": "holds", "mostly": "holds in most repetitions", "fails": "does not hold",
            "untestable": "cannot be checked"}[v["status"]]
    return f"**003's claim ({table}, {name.lower()}): {v['claim'] or 'P+ > O > NWRR > RR'} - {word} here.**"


def show(v: dict | None, *, compact: bool = False) -> None:
    """Draw one verdict: a coloured box (green: holds; blue: holds in most repetitions, or cannot be checked;
    yellow: does not hold - a finding about the data, not an error of the app)."""
    if v is None:
        return
    box = {"holds": st.success, "mostly": st.info, "fails": st.warning, "untestable": st.info}[v["status"]]
    lvl = (f"confidence {v['level']:.0%}" if v["method"] == "swap" else f"alpha = {v['level']:g}")
    how = (f"Checked strictly (a tie is not support) at {lvl}: {cached.SPREAD_REPEATS} Monte Carlo repetitions "
           f"at {widgets.b_title(v['B_shown'], v['B_chosen'])} (topics fixed), and "
           f"{cached.TOPIC_RESAMPLES} topic samples at B = {cached.TOPIC_B} each.")
    box(headline(v) + "  \n" + v["text"] + ("" if compact else "  \n" + how), icon=None)
    if compact:
        st.caption(how)
