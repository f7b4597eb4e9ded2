"""Report: the paper-style tables for the current data and settings, as CSV, LaTeX and a settings file."""
import streamlit as st

from dashboard import cached, errors, report, safe, shell, state, widgets

ss = st.session_state
s, full = shell.setup()
c = cached.analysis_collection(full, s)

st.title("Report")
st.caption(widgets.settings_line(s, c) + f" · {c.n_runs} runs · {c.n_topics} topics")
st.markdown("One click turns the current data and settings into the papers' tables: mean scores per run, "
            "Kendall's tau between metrics (Sakai 2007 Table 2) and between gain settings (Table 5), the swap (Table "
            "3), "
            "bootstrap (Table 4), Tukey and stability summaries. Results already on screen elsewhere (in any "
            "session) are reused; anything missing is computed now, with progress, at each page's B and seed.")

dk = cached.data_key(c, s)
sw_p = {"sampling": ss["sw_sampling"], "subset_size": min(int(ss["sw_subset"]), c.n_topics) or None,
        "seed": int(ss["sw_seed"])}
bs_p = {"alpha": float(ss["bs_alpha"]), "seed": int(ss["bs_seed"])}
st_p = {"subset_size": min(int(ss["st_subset"]), c.n_topics) or None, "seed": int(ss["st_seed"])}
jobs = [("swap", "swap", sw_p, int(ss["sw_B"]), "Swap method", "Swap method: difference needed per confidence level"),
        ("boot", "bootstrap", bs_p, int(ss["bs_B"]), "Bootstrap", "Bootstrap sensitivity: discriminative power"),
        ("tukey", "tukey", bs_p, int(ss["bs_B"]), "Tukey HSD", "Randomised Tukey HSD: significant pairs"),
        ("stab", "stability", st_p, int(ss["st_B"]), "Stability", "Stability: error rate and proportion of ties")]
report_key = (dk, tuple((k, tuple(sorted(p.items())), B) for _, k, p, B, _, _ in jobs))

if st.button("Build the report", type="primary", key="rp_build", icon=":material/description:"):
    tables = {}
    means = cached.means(c, s)
    tables["mean_scores"] = (means, f"Mean over {c.n_topics} topics per run ({widgets.settings_line(s, c)})")
    if c.n_runs >= 3:
        tau, _ = cached.correlation(means, alpha=0.01)
        tables["kendall_metrics"] = (tau, f"Kendall tau-b between metrics, {c.n_runs} runs")
        graded = [k for k in s.metric_keys if cached.METRICS[k.partition("@")[0]].uses_gains]
        if graded:
            m = ss.get("kc_metric") if ss.get("kc_metric") in graded else graded[0]
            gtau, _ = cached.correlation(cached.gain_settings_means(c, m, s), alpha=0.01)
            tables["kendall_gains"] = (gtau, f"Kendall tau-b of {m} between gain settings")
    if c.n_runs >= 2:
        for slot, kind, params, B, what, caption in jobs:
            res = cached.meta_lookup(kind, c, s, params, B)
            if res is None:
                prog = cached.Progress(f"{what} (B = {B}) ...")
                try:
                    res = cached.meta_compute(kind, c, s, params, B, progress=prog)
                except ValueError as e:
                    st.warning(f"{what} skipped: {safe.md_lines(e)}")
                finally:
                    prog.done()
            if res is not None and "summary" in res["frames"]:
                tables[slot] = (res["frames"]["summary"].set_index("metric"), f"{caption} (B = {B})")
    settings = {**s.as_json(), "dataset": s.dataset, "collection": c.name,
                "simulated": {"n_topics": int(ss["sim_topics"]), "n_runs": int(ss["sim_runs"]),
                              "seed": int(ss["sim_seed"])},
                "collection_fingerprint": c.fingerprint,
                "swap": {"sampling": ss["sw_sampling"], "subset_size": int(ss["sw_subset"]) or None,
                         "B": int(ss["sw_B"]), "seed": int(ss["sw_seed"])},
                "bootstrap": {"alpha": float(ss["bs_alpha"]), "B": int(ss["bs_B"]), "seed": int(ss["bs_seed"])},
                "stability": {"subset_size": int(ss["st_subset"]) or None, "B": int(ss["st_B"]),
                              "seed": int(ss["st_seed"])}}
    ss["_report"] = (report.bundle(tables, settings), {k: v for k, v in tables.items()})
    ss["_report_key"] = report_key

if ss.get("_report"):
    files, tables = ss["_report"]
    if ss.get("_report_key") != report_key:
        st.warning("This report was built with other data or settings than the current ones. Press **Build the "
                   "report** to update it (results computed before come back at once).", icon=":material/update:")
    d1, d2, d3, d4 = st.columns(4)
    d1.download_button("All tables (.zip of CSV)", files["evalcore-report.zip"], "evalcore-report.zip",
                       mime="application/zip", key="rp_dl_zip", width="stretch")
    d2.download_button("LaTeX (booktabs)", files["tables.tex"], "tables.tex", mime="text/x-tex",
                       key="rp_dl_tex", width="stretch")
    d3.download_button("Settings (JSON)", files["settings.json"], "evalcore-settings.json",
                       mime="application/json", key="rp_dl_json", width="stretch")
    d4.caption("CLI: `evalcore evaluate --settings evalcore-settings.json ...` reads the same file; "
               "`--save-settings FILE` writes one this page reloads.")
    for name, (df, caption) in tables.items():
        with st.expander(caption, expanded=name in ("mean_scores", "kendall_metrics")):
            widgets.table(df, digits=3)     # 3 decimals on screen (all columns in view at 1024 px); files: all
            st.download_button(f"{name}.csv", files[f"{name}.csv"], f"{name}.csv", mime="text/csv",
                               key=f"rp_dl_{name}")

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
