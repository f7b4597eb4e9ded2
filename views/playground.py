"""Metric playground: build a ranked list and a topic by hand, watch every metric."""
import streamlit as st

from dashboard import errors, safe, scoring, shell, state, teaching, widgets
from evalcore import figures

MAX_RANKS = 30
ss = st.session_state
s, c = shell.setup()
K = c.max_level
names = state.level_names(K, c.level_names)          # names[L-1] for level L
LEVEL_OPTIONS = list(range(K, -1, -1))                # highest first, 0 = non-relevant last


def _fmt(L: int) -> str:
    # "-" for a non-relevant document: a level selector three characters wide still shows it
    return "-" if L == 0 else f"{names[L - 1]}"


def _parse(text: str, n: int | None = None) -> list[int]:
    try:
        vals = [int(v) for v in str(text).split(",") if v.strip() != ""]
    except ValueError:
        vals = []
    return vals


def _list() -> list[int]:
    return [min(max(v, 0), K) for v in _parse(ss["pl_list"])][:MAX_RANKS] or [0]


def _counts() -> list[int]:
    v = [min(max(x, 0), 1000) for x in _parse(ss["pl_counts"])]
    return (v + [0] * K)[:K] if v else [1] * K


@errors.guarded
def _set(levels, counts=None):
    ss["pl_list"] = ",".join(str(int(v)) for v in levels)
    if counts is not None:
        ss["pl_counts"] = ",".join(str(int(v)) for v in counts)
    for k in [k for k in ss if k.startswith(("pl_r", "pl_c")) and k[4:].isdigit()]:
        del ss[k]
    ss.pop("pl_n", None)


def _current_from_widgets() -> list[int]:
    n = int(ss.get("pl_n", len(_list())))
    cur = _list()
    return [int(ss.get(f"pl_r{i}", cur[i - 1] if i <= len(cur) else 0)) for i in range(1, n + 1)]


@errors.guarded
def _move(step: int):
    lv = _current_from_widgets()
    i = int(ss.get("pl_move", 1)) - 1
    j = i + step
    if 0 <= i < len(lv) and 0 <= j < len(lv):
        lv[i], lv[j] = lv[j], lv[i]
        _set(lv)
        ss["pl_move"] = j + 1


PRESETS, FIG3_COUNTS, FIG3_WHAT = teaching.fig3_presets(K, names)
WHY = teaching.FIG3_WHY
if ss.get("_pl_K") not in (None, K):                  # a list built for another K: start over with Z
    _set(PRESETS["Z"][0], FIG3_COUNTS)
    st.toast(f"The collection has {K} levels: the playground list was reset to Sakai 2007's system Z.")
elif ss.get("_pl_K") is None and (ss["pl_list"], ss["pl_counts"]) == (state.default("pl_list"),
                                                                     state.default("pl_counts")) and K != 3:
    _set(PRESETS["Z"][0], FIG3_COUNTS)     # first visit: system Z on this collection's levels, as the caption says
ss["_pl_K"] = K

st.title("Metric playground")
widgets.caption("Build a ranked list and a topic by hand. Every metric, and the numbers behind it, follow the "
                "sidebar's gains, beta and penalties.")

strip = st.container()
# chart column first: on a narrow screen the columns stack and the chart stays above the controls
right, left = st.columns([1, 1.05], gap="large")
with left:
    widgets.markdown(f"**Presets** (Sakai 2007 Fig. 3 topic: {FIG3_WHAT})")
    cols = st.columns(len(PRESETS))
    for col, (name, (lv, what)) in zip(cols, PRESETS.items(), strict=True):
        col.button(name, key=f"pl_preset_{name}", on_click=_set, args=(lv, FIG3_COUNTS),
                   help=f"{what}. Why: {WHY[name]}.", width="stretch")
    widgets.caption("  \n".join(f"**{name}**: {WHY[name]}" for name in PRESETS))
    widgets.markdown("**The topic**: relevant documents per level")
    cur_counts = _counts()
    ccols = st.columns(K)
    for i, L in enumerate(range(K, 0, -1)):
        ss.setdefault(f"pl_c{L}", cur_counts[L - 1])
        ccols[i].number_input(f"{names[L - 1]} documents", min_value=0, max_value=1000, step=1, key=f"pl_c{L}")
    counts = [int(ss[f"pl_c{L}"]) for L in range(1, K + 1)]
    ss["pl_counts"] = ",".join(map(str, counts))

    widgets.markdown("**The ranked list**: level of the document at each rank (- = non-relevant)")
    cur = _list()
    ss.setdefault("pl_n", len(cur))
    st.number_input("ranks", min_value=1, max_value=MAX_RANKS, step=1, key="pl_n")
    n = int(ss["pl_n"])
    per_row = 6
    for start in range(0, n, per_row):
        rcols = st.columns(per_row)
        for i in range(start + 1, min(n, start + per_row) + 1):
            ss.setdefault(f"pl_r{i}", cur[i - 1] if i <= len(cur) else 0)
            if ss[f"pl_r{i}"] not in LEVEL_OPTIONS:
                ss[f"pl_r{i}"] = 0
            rcols[i - start - 1].selectbox(f"rank {i}", LEVEL_OPTIONS, key=f"pl_r{i}", format_func=_fmt)
    levels = [int(ss[f"pl_r{i}"]) for i in range(1, n + 1)]
    ss["pl_list"] = ",".join(map(str, levels))
    m1, m2, m3, m4 = st.columns([1.2, 1, 1, 1.1], vertical_alignment="bottom")
    if int(ss.get("pl_move", 1)) > n:
        ss["pl_move"] = 1
    m1.selectbox("reorder: rank", list(range(1, n + 1)), key="pl_move")
    m2.button("up", on_click=_move, args=(-1,), key="pl_up", icon=":material/arrow_upward:",
              width="stretch")
    m3.button("down", on_click=_move, args=(1,), key="pl_down", icon=":material/arrow_downward:",
              width="stretch")
    m4.button("reverse", on_click=errors.guarded(lambda: _set(_current_from_widgets()[::-1])), key="pl_rev",
              width="stretch")

    with st.expander("Copy a list from the loaded data"):
        d1, d2 = st.columns(2)
        run = d1.selectbox("run", list(c.run_ids), key="pl_src_run", format_func=safe.text)
        topic = d2.selectbox("topic", list(c.topic_ids), key="pl_src_topic", format_func=safe.text,
                             index=len(c.topic_ids) - 1 if c.n_topics <= 3 else 0)

        @errors.guarded
        def _copy():
            lv, cnt, beyond = teaching.list_from_collection(c, c.run_ids.index(ss["pl_src_run"]),
                                                            c.topic_ids.index(ss["pl_src_topic"]), MAX_RANKS)
            _set(lv or [0], cnt)
            ss["_pl_beyond"] = beyond

        st.button("Copy this run's list", on_click=_copy, key="pl_copy")
        if ss.get("_pl_beyond"):
            widgets.caption(f"{ss['_pl_beyond']} relevant document(s) lie below rank {MAX_RANKS} and were left out.")

one = teaching.one_topic(levels, counts, level_names=c.level_names)
if one.level_counts[0, 1:].tolist() != counts:
    st.toast("The list holds more documents of a level than the topic: the topic's counts were raised to match.")
keys = [state.expand(k, s.cutoff) for k in scoring.METRIC_KEYS]
params = dict(gains=list(s.gains), beta=s.beta, penalties=list(s.penalties), rel_threshold=s.rel_threshold)
vals = teaching.metric_values(one, keys, **params)
table, r1, rp = teaching.per_rank(one, gains=list(s.gains), beta=s.beta, penalties=list(s.penalties))

with strip:
    focus = vals[vals["metric"].isin(scoring.ONE_DOCUMENT_KEYS)].set_index("metric")["value"]
    fcols = st.columns(len(focus) + 3)
    for col, (k, v) in zip(fcols, focus.items(), strict=False):
        col.metric(k, f"{v:.4f}")
    fcols[-3].metric("r_1", r1 or "none", help="rank of the first relevant document")
    fcols[-2].metric("r_p", rp or "none", help="preferred rank: the first document of the highest level in the list")
    fcols[-1].metric("R", int(one.R[0]), help="relevant documents for the topic")
with right:
    level_colors = {names[L - 1]: figures.OKABE_ITO[(K - L) % len(figures.OKABE_ITO)] for L in range(1, K + 1)}
    chart = table.rename(columns={"g(r)": "g", "BR(r)": "BR"})
    widgets.chart(figures.playground_chart(chart, level_colors), width="stretch",
                    key="pl_chart")
    widgets.caption("Bars: the gain of each retrieved document. Line: the blended ratio BR(r) at relevant ranks. "
                    "O-measure reads BR at r_1, P-measure at r_p, P+ averages BR down to r_p.")

M_TOP = max([L for L in range(1, K + 1) if int(one.level_counts[0, L]) > 0] or [K])
widgets.subheader("Per rank")


def _per_rank_style(df):
    """A per-rank table as drawn: "-" where a value is not defined (a non-relevant rank), r_1 and r_p shaded."""
    fmt = {"g(r)": "{:g}", "cg(r)": "{:g}", "cg_I(r)": "{:g}", "BR(r)": "{:.4f}", "pi(L)": "{:g}",
           "1/(r - 1/pi(L))": "{:.4f}"}
    return (df.style.format({k: v for k, v in fmt.items() if k in df.columns}, na_rep="-")
            .apply(lambda r: ["background-color: #E8F1F8" if r["marks"] else "" for _ in r], axis=1))


widgets.note_table(table, digits=4)
st.dataframe(_per_rank_style(table), hide_index=True, width="stretch", height=widgets.rows_height(len(table)))
widgets.caption("g(r): gain at rank r; cg: cumulative gain; cg_I: the ideal list's cumulative gain; count: relevant "
           "documents down to r; BR: the blended ratio (relevant ranks only); pi(L): the NWRR penalty of the "
           "document's level (written pi here, beta in Sakai 2007, to keep it apart from the blended ratio's beta); "
           "1/(r - 1/pi(L)): WRR at that rank (Sakai 2007 Sec. 3.2) - WRR takes it at r_1 and NWRR divides it by "
           f"1 - 1/pi(M) = {1 - 1 / s.penalties[M_TOP - 1]:.4f} (M = {names[M_TOP - 1]}, the topic's highest "
           "level), the value of such a document at rank 1. "
           "Shaded: r_1 and r_p.")

widgets.subheader("The formula with this list's numbers")
if ss.get("pl_formula") not in teaching.WORKED:      # a value from the address this page does not offer
    ss["pl_formula"] = "P-measure"
wk = st.selectbox("metric", teaching.WORKED, key="pl_formula",
                  help="Each step of the chosen metric's formula, filled in with this list's values (relaxed "
                       "threshold: every relevant level counts).")
steps, worked_value = teaching.worked_steps(wk, table, r1=r1, rp=rp, R=int(one.R[0]), beta=s.beta,
                                            penalties=list(s.penalties), top_level=M_TOP)
for line in steps:
    st.latex(line)
widgets.caption(f"beta = {s.beta:g} (sidebar), gains {state.paper(s.gains)}, penalties pi {state.paper(s.penalties)}; "
                f"R = {int(one.R[0])} relevant documents for the topic.")

# -- lists side by side: this one, a pinned one and Sakai 2007 Fig. 3's systems ---------------------------
widgets.subheader("Lists side by side")


@errors.guarded
def _pin():
    ss["pl_pin"] = f"{ss['pl_list']}|{ss['pl_counts']}"


@errors.guarded
def _unpin():
    ss["pl_pin"] = ""


pinned = teaching.parse_pin(ss.get("pl_pin", ""), K)
CMP_LISTS = ["this list", "pinned list", *PRESETS]
p1, p2, p3 = st.columns([1, 1, 4], vertical_alignment="bottom")
p1.button("Pin this list", on_click=_pin, key="pl_pin_btn", icon=":material/push_pin:", width="stretch",
          help="Keep a copy of this list and topic; change the list above and compare the two here.")
p2.button("Unpin", on_click=_unpin, key="pl_unpin_btn", disabled=not ss.get("pl_pin"), width="stretch")
state.list_setting("pl_cmp", CMP_LISTS, CMP_LISTS)
chosen = p3.multiselect("lists", CMP_LISTS, key="pl_cmp",
                        help="This list, the pinned one and Sakai 2007 Fig. 3's systems on its topic (one S, one "
                             "A, one B document): the columns of the table.")
lists = {}
for name in chosen:
    if name == "this list":
        lists[name] = (levels, counts)
    elif name == "pinned list" and pinned is not None:
        lists[name] = pinned
    elif name in PRESETS:
        lists[name] = (PRESETS[name][0], FIG3_COUNTS)
label = lambda lv: " ".join(_fmt(v) for v in lv)      # noqa: E731
if lists:
    cmp = teaching.compare_lists(lists, list(s.metric_keys), **params, level_names=c.level_names)
    if "this list" in cmp and "pinned list" in cmp:
        cmp["this - pinned"] = cmp["this list"] - cmp["pinned list"]
    widgets.table(cmp.reset_index(), digits=4, hide_index=True, height=widgets.rows_height(len(cmp)))
    widgets.caption(" · ".join(f"**{safe.md(n)}**: {safe.md(label(lv))}" for n, (lv, _) in lists.items())
               + " (levels by rank, - = non-relevant). The sidebar's metrics, with its gains, beta and penalties; "
               f"X, Y, Z, inverse and ideal on Sakai 2007 Fig. 3's topic ({FIG3_WHAT}).")
else:
    widgets.caption("Choose the lists to compare.")
if pinned is None:
    widgets.caption("Press **Pin this list** to keep the current list as the *pinned list*: change the list above and "
               "compare the two here, rank by rank below. The pinned list is in the address too.")
else:
    p_levels, p_counts = pinned
    pin_one = teaching.one_topic(p_levels, p_counts, level_names=c.level_names)
    pin_table, _, _ = teaching.per_rank(pin_one, gains=list(s.gains), beta=s.beta, penalties=list(s.penalties))
    # one above the other: side by side, each table's ten columns scrolled sideways on a 1024 px screen
    for title, t in (("Pinned list, per rank", pin_table), ("This list, per rank", table)):
        widgets.markdown(f"**{title}**")
        st.dataframe(_per_rank_style(t), hide_index=True, width="stretch", height=widgets.rows_height(len(t)))

widgets.subheader("Every metric")
widgets.table(vals, digits=4, hide_index=True, height=widgets.rows_height(len(vals)),   # every row, no inner scroll
              column_config={"value": st.column_config.NumberColumn(format="%.4f"),
                             # "medium": every column in view on a 1024 px screen (hover a cell for the whole text)
                             "user model": st.column_config.TextColumn(width="medium")})

with st.expander("Formulas (Sakai 2007; Sakai 2004)", expanded=False):
    fcols = st.columns(2)
    for i, (name, tex) in enumerate(teaching.FORMULAS.items()):
        with fcols[i % 2]:
            widgets.markdown(f"**{name}**")
            st.latex(tex)
    widgets.caption("r_1: rank of the first relevant document; r_p: rank of the first document of the highest "
                    "level present in the list; pi(L): the NWRR penalty of level L (beta in Sakai 2007), M the topic's "
                    "highest "
                    "level; beta: the blended ratio's weight of gain against rank.")
