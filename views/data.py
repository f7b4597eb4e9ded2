"""Data: upload qrels and runs, or pick the simulated collection or the papers' examples."""
import time

import pandas as pd
import streamlit as st

from dashboard import datasets, errors, progress, safe, scoring, shell, state, stores, uploads, widgets
from evalcore.io import InputError

ss = st.session_state
s, _ = shell.setup(data_page=True)
if ss.pop("_switch_to_upload", False):
    st.toast("Files loaded: the app now shows them.", icon=":material/check_circle:")

st.title("Data")
widgets.caption("Pick the collection every page evaluates. Settings in the sidebar apply to all of it.")


@errors.guarded
def _use(ds: str) -> None:
    st.session_state["dataset"] = ds


tab_sim, tab_ex, tab_up = st.tabs(["Simulated collection", "Papers' worked examples", "Upload files"])
with tab_sim:
    widgets.markdown("An NTCIR-like collection with levels S/A/B, generated deterministically from a seed: "
                     "systems differ in quality and in their taste for highly relevant documents.")
    c1, c2, c3, c4 = st.columns([1, 1, 1, 1.3])
    c1.number_input("topics", min_value=2, max_value=state.SIM_MAX_TOPICS, step=1, key="sim_topics")
    c2.number_input("runs", min_value=2, max_value=state.SIM_MAX_RUNS, step=1, key="sim_runs")
    c3.number_input("seed", min_value=0, max_value=10**6, step=1, key="sim_seed")
    c4.button("Use the simulated collection", on_click=_use, args=("sim",), type="primary",
              disabled=ss["dataset"] == "sim", width="stretch", key="use_sim")
with tab_ex:
    widgets.markdown("The worked examples of Sakai 2007, Sec. 3.2-3.3: three topics and six tiny "
                     "runs. Open the **Metric playground** and copy run Z, topic T3 to follow the paper's argument "
                     "for P-measure.")
    notes = datasets.example_notes()
    st.dataframe(pd.DataFrame({"run": list(notes), "what it is": list(notes.values())}),
                 hide_index=True, width="stretch")
    st.button("Use the worked examples", on_click=_use, args=("examples",), type="primary",
              disabled=ss["dataset"] == "examples", key="use_examples")
with tab_up:
    widgets.markdown("TREC (`topic Q0 doc rank score tag`) or NTCIR run files, TREC qrels "
                     "(`topic 0 doc level`) or NTCIR qrels (`topic doc L2`). Files may be `.gz`; "
                     "runs may also come as one `.zip` - and one `.zip` may hold the qrels and the runs together "
                     "(leave the qrels box empty). " + uploads.upload_budget_line())
    c1, c2 = st.columns(2)
    @errors.guarded
    def _new_files():
        st.session_state.pop("_load_error", None)

    # per file: the browser and the server refuse a larger file before its bytes are held (dashboard.budget)
    qrels = c1.file_uploader("Qrels (one file)", key=uploads.uploader_key("up_qrels"), on_change=_new_files,
                             max_upload_size=stores.BUDGET.file_mb,
                             help="Leave empty when the zip beside holds the qrels too.")
    runs = c2.file_uploader("Runs (several files, or one .zip; may hold the qrels)", accept_multiple_files=True,
                            key=uploads.uploader_key("up_runs"), on_change=_new_files,
                            max_upload_size=stores.BUDGET.file_mb,
                            help="A zip may hold the qrels and the runs together: its qrels are told from its runs "
                                 "by name (qrels*, *.rel) and by their first line (4 fields: topic 0 doc level).")
    too_much = uploads.upload_over_budget(qrels, runs)
    if too_much:                                    # this session's or the server's budget: released at once
        uploads.release_upload(qrels, runs)
        qrels, runs = None, []
        ss["_load_error"] = too_much
        st.rerun()
    with st.expander("Reading options"):
        o1, o2, o3 = st.columns(3)
        order = o1.selectbox("rank order", ["score", "rank", "file"], key="up_order",
                             help="score: by score descending, ties by document id descending (trec_eval); "
                                  "rank: by the rank column; file: as written.")
        condensed = o2.checkbox("condensed lists", key="up_condensed",
                                help="Remove unjudged documents first (Sakai SIGIR 2007).")
        keep_first = o3.checkbox("keep first duplicate", key="up_keep_first",
                                 help="A document listed twice for a topic: keep its first line instead of "
                                      "reporting an error.")
    # one zip holding qrels and runs: in either box, the other one empty
    bundle = None
    if not qrels and runs and len(runs) == 1 and runs[0].name.lower().endswith(".zip"):
        bundle = runs[0]
    elif qrels and not runs and qrels.name.lower().endswith(".zip"):
        bundle = qrels
    ready = bool(qrels and runs) or bundle is not None
    if ready:
        suggested = uploads.default_upload_name(None if bundle else qrels.name,
                                                [bundle.name] if bundle else [f.name for f in runs])
        if ss.get("_up_name_for") != suggested:      # new files: propose a new name
            ss["up_name"] = suggested
            ss["_up_name_for"] = suggested
        st.text_input("Name of this collection", key="up_name", max_chars=120,
                      help="Shown as the title on every page. Default: the runs' zip or folder name, else the "
                           "qrels file name.")
    elif qrels and not runs:
        st.caption("Add the runs (files or one zip), or give one zip holding the qrels and the runs.")
    elif runs and not qrels:
        st.caption("Add the qrels, or give the runs and the qrels together in one zip.")
    if st.button("Load these files", type="primary", disabled=not ready, key="up_load"):
        with st.status("Reading files ...", expanded=True) as status:
            t0 = time.perf_counter()
            files = [bundle] if bundle is not None else [qrels, *runs]
            st.write(f"{len(files)} file(s), {sum(f.size for f in files) / 1e6:.1f} MB"
                     + (" (qrels and runs in one zip)" if bundle is not None else ""))
            prog = progress.Progress("Reading the zip's qrels and runs ..." if bundle is not None
                                     else f"Reading {len(runs)} run file(s) ...")
            # Stop: its click's rerun interrupts the load at its next progress tick and the loader's worker is
            # ended (dashboard.loader); the previous data stays
            st.button("Stop loading", key="up_stop", icon=":material/stop_circle:",
                      help="Stop reading these files; the data loaded before stays.")
            try:
                c = uploads.load_upload(None if bundle is not None else (qrels.name, qrels.getvalue()),
                                        [(f.name, f.getvalue()) for f in ([bundle] if bundle is not None else runs)],
                                        order=order, condensed=condensed, keep_first_duplicate=keep_first,
                                        name=(ss.get("up_name") or "").strip() or None, progress=prog)
                uploads.release_upload(qrels, runs)   # the worker has read the bytes: the server drops its copy
            except (InputError, ValueError, OSError, OverflowError, MemoryError) as e:
                prog.done()
                status.update(label="These files could not be loaded", state="error", expanded=True)
                ss["_load_error"] = errors.app_text(e)      # fixes said with the app's controls
            else:
                status.update(label=f"Loaded in {time.perf_counter() - t0:.1f} s", state="complete")
                ss["uploaded"] = c
                ss.pop("_load_error", None)
                ss["_switch_to_upload"] = True
                st.rerun()
    if ss.get("_load_error"):
        msg = safe.md_lines(ss["_load_error"])      # quotes file names and lines: text, line breaks kept
        st.error(f"{msg}\n\nThe app keeps showing the previously loaded data.", icon=":material/error:")

c = datasets.current_collection()
widgets.subheader(safe.md(c.name or "Loaded collection"))
m1, m2, m3, m4 = st.columns(4)
m1.metric("topics", c.n_topics)
m2.metric("runs", c.n_runs)
m3.metric("relevance levels", f"{c.max_level + 1} (0-{c.max_level})",
          help=f"Non-relevant (0) and {c.max_level} relevant level(s), 1 to {c.max_level}; gains and penalties "
               "are set for the relevant ones.")
m4.metric("list depth", c.depth)
names = state.level_names(c.max_level, c.level_names)
counts = pd.DataFrame({
    "level": [f"{names[L - 1]} (level {L})" for L in range(c.max_level, 0, -1)],
    "documents": [int(c.level_counts[:, L].sum()) for L in range(c.max_level, 0, -1)],
    "mean per topic": [float(c.level_counts[:, L].mean()) for L in range(c.max_level, 0, -1)],
    "topics with it": [int((c.level_counts[:, L] > 0).sum()) for L in range(c.max_level, 0, -1)],
})
# short headers and the wider column: all four columns in view on a 1024 px screen
left, right = st.columns([1.5, 1])
with left:
    widgets.markdown("**Relevant documents per level**")
    widgets.table(counts, digits=1, hide_index=True)
with right:
    widgets.markdown("**Load report**")
    rep = c.report
    lines = rep.summary(None).splitlines() if rep is not None else []
    src = getattr(rep, "qrels_source", "")
    if src:
        widgets.markdown(f"Source: {safe.md(src)}")
    info = [ln for ln in lines if not ln.startswith("warning:")]
    # one line per problem: the same problem in several runs is said once, with its count
    warns = rep.grouped_warnings() if rep is not None else []
    for ln in info:
        widgets.markdown(f"- {safe.md(ln)}")        # names files and topics: text
    if warns:
        n_all = len(rep.warnings)
        with st.expander(f"{len(warns)} warning(s)" + (f" ({n_all} before grouping)" if n_all > len(warns) else ""),
                         expanded=len(warns) <= 5):
            for w in warns[:200]:
                st.warning(safe.md_lines(w), icon=":material/warning:")
    elif not info:
        st.success("No warnings.", icon=":material/check_circle:")
with st.expander("Retrieved and relevant documents per run (trec_eval's num_ret, num_rel, num_rel_ret)"):
    n_all = c.n_topics + len(c.topics_without_relevant)
    level = f"level {s.rel_threshold} or higher"
    widgets.caption(f"Sums over all {n_all} qrels topics, relevant meaning {level} (the sidebar's "
                    f"{'rigid' if s.rel_threshold == 2 else 'relaxed'} threshold), as trec_eval -l "
                    f"{s.rel_threshold} and ir_measures count them. NumRet: documents retrieved; NumRel: relevant "
                    "documents judged; NumRelRet: relevant documents retrieved. Counts, not scores, so the charts "
                    "and the meta-evaluation pages do not offer them.")
    widgets.table(scoring.counts(c, s).reset_index(), digits=0, height=min(widgets.rows_height(c.n_runs), 420),
                  hide_index=True, column_config={"run": st.column_config.TextColumn("run", width="large")})
with st.expander("Runs and topics"):
    st.text("Runs: " + safe.text(", ".join(c.run_ids)))      # ids from the files: plain text, never Markdown,
    st.text("Topics: " + safe.text(", ".join(c.topic_ids)))  # their bidi controls escaped as on every page
