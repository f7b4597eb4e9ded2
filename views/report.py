"""Report: `evalcore report` on the current data and settings (its files, byte for byte), and a settings file."""
import json

import streamlit as st

from dashboard import errors, meta_store, progress, report, safe, shell, state, widgets

ss = st.session_state
s, full = shell.setup()
c = full

st.title("Report")
st.caption(widgets.settings_line(s, c) + f" · {c.n_runs} runs · {c.n_topics} topics")
st.markdown("One click runs **`evalcore report`** on the current data with the sidebar's gains, beta, penalties and "
            "threshold: Sakai 2007's experiment (Kendall's tau, Table 2; swap, Table 3; bootstrap sensitivity, Table "
            "4; other gain settings, Tables 5-6; Tukey HSD and stability) with the Monte Carlo spread (mean ± sd over "
            "repetitions), the topic bootstrap (Tables 7-8) and the comparison with the paper's findings. The files "
            "are the command's, byte for byte: the report states the command line that writes them again.")

for key, default in report.DEFAULTS.items():
    ss.setdefault(f"rp_{key}", default)
o1, o2, o3, o4, o5 = st.columns(5)
o1.number_input("top N runs", *report.BOUNDS["top"], key="rp_top", help="The N best runs by the metric beside "
                "(Sakai 2007: 30 by relaxed AP); all runs when there are fewer.")
o2.selectbox("ranked by", report.TOP_BY, key="rp_top_by", help="AP is Sakai 2007's relaxed AP at the "
             "sidebar's threshold.")
o3.number_input("B (swap, bootstrap)", *report.BOUNDS["B"], step=100, key="rp_B",
                help="Swap trials and bootstrap samples (Sakai 2007: 1000).")
o4.number_input("Tukey B", *report.BOUNDS["tukey_B"], step=100, key="rp_tukey_B", help="Tukey HSD permutations.")
o5.number_input("repetitions", *report.BOUNDS["repeats"], key="rp_repeats",
                help="Monte Carlo repetitions with seeds derived from the seed: the ± of Tables 3-6.")
p1, p2, p3, p4, _ = st.columns(5)
p1.number_input("seed", *report.BOUNDS["seed"], key="rp_seed")
p2.number_input("topic samples", *report.BOUNDS["topic_resamples"], key="rp_topic_resamples",
                help="Topic bootstrap of Tables 7-8 (0 = none): the uncertainty from the choice of topics.")
p3.number_input("B per topic sample", *report.BOUNDS["topic_B"], step=50, key="rp_topic_B")
p4.number_input("topic seed", *report.BOUNDS["topic_seed"], key="rp_topic_seed")

v = state.value       # the Data, Swap, Bootstrap and Stability pages' settings
argv = report.report_argv(dataset=s.dataset, collection=full, gains=s.gains, beta=s.beta, penalties=s.penalties,
                          rel_threshold=s.rel_threshold,
                          sim={"n_topics": v("sim_topics"), "n_runs": v("sim_runs"), "seed": v("sim_seed")},
                          options={k: ss[f"rp_{k}"] for k in report.DEFAULTS})
settings = {**s.as_json(), "dataset": s.dataset, "collection": full.name, "collection_fingerprint": full.fingerprint,
            "simulated": {"n_topics": int(v("sim_topics")), "n_runs": int(v("sim_runs")),
                          "seed": int(v("sim_seed"))},
            "swap": {"sampling": v("sw_sampling"), "subset_size": int(v("sw_subset")) or None, "B": int(v("sw_B")),
                     "seed": int(v("sw_seed"))},
            "bootstrap": {"alpha": float(v("bs_alpha")), "B": int(v("bs_B")), "seed": int(v("bs_seed"))},
            "stability": {"subset_size": int(v("st_subset")) or None, "B": int(v("st_B")),
                          "seed": int(v("st_seed"))}}

#: The report's captions, notes and findings are shown whole (safe.md cuts user text at 500 characters).
LONG = 20000

if st.button("Build the report", type="primary", key="rp_build", icon=":material/description:"):
    ss.pop("_report_stopped", None)
    built = meta_store.report_lookup(full, argv)       # built before with these options (any session): at once
    if built is None:
        prog = progress.Progress("evalcore report ...")
        # Stop: its click's rerun interrupts the build at the next progress step; the button press that started
        # it is not repeated, so nothing starts again
        st.button("Stop", key="rp_stop", icon=":material/stop_circle:",
                  on_click=errors.guarded(lambda: ss.update(_report_stopped=prog.stopped_at())),
                  help="Stop building the report; nothing is kept of it, the page stays as it was.")
        try:
            built = meta_store.report_build(full, argv, progress=prog)
        finally:
            prog.done()
    files = dict(built[1])
    files["settings.json"] = (json.dumps({"settings": settings}, indent=1) + "\n").encode()
    ss["_report"] = (files, built[0])
    ss["_report_key"] = (full.fingerprint, tuple(argv))

if ss.get("_report_stopped"):
    halt = ss["_report_stopped"]
    st.info(f"Building the report was stopped at {halt.get('frac', 0.0):.0%} (after {halt.get('seconds', 0.0):.0f} s); "
            "nothing of it was kept. **Build the report** starts it again.", icon=":material/stop_circle:")
if ss.get("_report"):
    files, e = ss["_report"]
    if ss.get("_report_key") != (full.fingerprint, tuple(argv)):
        st.warning("This report was built with other data or settings than the current ones. Press **Build the "
                   "report** to update it (a report built before with the same options comes back at once).",
                   icon=":material/update:")
    d1, d2, d3, d4 = st.columns(4)
    d1.download_button("All files (.zip)", files["evalcore-report.zip"], "evalcore-report.zip",
                       mime="application/zip", key="rp_dl_zip", width="stretch",
                       help="report.md and every table as CSV (numbers) and LaTeX (booktabs), as the command "
                            "writes them.")
    d2.download_button("report.md", files["report.md"], "report.md", mime="text/markdown", key="rp_dl_md",
                       width="stretch")
    d3.download_button("LaTeX (all tables)", files["tables.tex"], "tables.tex", mime="text/x-tex",
                       key="rp_dl_tex", width="stretch")
    d4.download_button("Settings (JSON)", files["settings.json"], "evalcore-settings.json",
                       mime="application/json", key="rp_dl_json", width="stretch")
    command = files["report.md"].decode().split("Written by `", 1)[1].split("`", 1)[0]
    st.caption("The command that writes these files (uploaded files appear as QRELS and RUNS; `evalcore evaluate "
               "--settings evalcore-settings.json` reads the settings file):")
    # plain text: the shell highlighting's parameter colour read 2.8:1 on the code box, under WCAG AA's 4.5:1
    st.code(command, language=None, wrap_lines=True)
    for t in e.tables:
        with st.expander(safe.md(t.title), expanded=t.stem == "table2_kendall"):
            widgets.table(t.display, digits=4, hide_index=True, label=t.title)
            widgets.caption(safe.md(t.caption, LONG))
            for note in t.notes:
                widgets.caption(safe.md(note, LONG))
            st.download_button(f"{t.stem}.csv", files[f"{t.stem}.csv"], f"{t.stem}.csv", mime="text/csv",
                               key=f"rp_dl_{t.stem}")
    widgets.subheader("Comparison with the paper's findings")
    # the findings' bold words are the report's own Markdown (**...**); every other character is text
    widgets.markdown("\n".join("- " + "**".join(safe.md(part, LONG) for part in f.split("**")) for f in e.findings))
    widgets.caption(safe.md(e.notes[-1], LONG))

st.divider()
st.markdown("**Reload a settings file** (as downloaded from this page)")


@errors.guarded
def _apply():
    f = st.session_state.get("rp_settings_file")
    if f is None:
        return
    problems = state.apply_settings_file(f.getvalue(), st.session_state["_K"], source=f.name)
    st.session_state["_settings_problems"] = problems
    st.session_state["_settings_loaded"] = f.name


st.file_uploader("settings JSON", type=["json"], key="rp_settings_file", on_change=_apply)
if ss.get("_settings_loaded"):
    probs = ss.get("_settings_problems") or []
    if probs:
        st.error(safe.md_lines("; ".join(probs)) + " - nothing was changed.", icon=":material/error:")
    elif ss.get("_settings_notes"):   # applied, but not exactly as written: say every change, as text
        st.warning(f"Settings from {safe.md(ss['_settings_loaded'])} applied with changes:", icon=":material/warning:")
        st.text("\n".join(ss["_settings_notes"]))
    else:
        st.success(f"Settings from {safe.md(ss['_settings_loaded'])} applied.", icon=":material/check_circle:")
