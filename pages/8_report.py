"""Report: the paper-style tables for the current data and settings, as CSV, LaTeX and a settings file."""
import streamlit as st

from dashboard import cached, report, shell, state, widgets

ss = st.session_state
s, full = shell.setup()
c = cached.analysis_collection(full, s)

st.title("Report")
st.caption(widgets.settings_line(s, c) + f" · {c.n_runs} runs · {c.n_topics} topics")
st.markdown("One click turns the current data and settings into the papers' tables: mean scores per run, "
            "Kendall's tau between metrics (003 Table 2) and between gain settings (Table 5), and, when they have "
            "been run here, the swap (Table 3), bootstrap (Table 4), Tukey and stability summaries.")

slow = st.checkbox("also run the swap method, bootstrap test and stability now (uses each page's settings; slow)",
                   key="rp_slow")
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
    dk = cached.data_key(c, s)
    sw_key = (dk, ss["sw_sampling"], int(ss["sw_subset"]) or None, int(ss["sw_B"]), int(ss["sw_seed"]))
    bs_key = (dk, float(ss["bs_alpha"]), int(ss["bs_B"]), int(ss["bs_seed"]))
    st_key = (dk, int(ss["st_subset"]) or None, int(ss["st_B"]), int(ss["st_seed"]))
    scores = cached.scores(c, s)
    jobs = [
        ("swap", sw_key, "swap_method", "Swap method",
         lambda p: cached.swap(scores, sw_key, *sw_key[1:], _progress=p), "summary",
         "Swap method: difference needed per confidence level"),
        ("boot", bs_key, "bootstrap_sensitivity", "Bootstrap",
         lambda p: cached.bootstrap(scores, bs_key, tuple(c.run_ids), bs_key[2], bs_key[3], bs_key[1], _progress=p),
         "summary", "Bootstrap sensitivity: discriminative power"),
        ("tukey", bs_key, "tukey_hsd", "Tukey HSD",
         lambda p: cached.tukey(scores, bs_key, tuple(c.run_ids), bs_key[2], bs_key[3], bs_key[1], _progress=p),
         "summary", "Randomised Tukey HSD: significant pairs"),
        ("stab", st_key, "stability", "Stability",
         lambda p: cached.stability(scores, st_key, *st_key[1:], _progress=p), "summary",
         "Stability: error rate and proportion of ties"),
    ]
    for slot, key, fn, what, compute, part, caption in jobs:
        res = widgets.stored_result(slot, key)
        if res is None and slow and slot != "tukey":
            prog = cached.Progress(f"{what} ...")
            try:
                res = compute(prog)
                ss[f"_res_{slot}"] = (key, res)
            except ValueError as e:
                st.warning(f"{what} skipped: {e}")
            finally:
                prog.done()
        if res is not None and part in res:
            tables[slot] = (res[part].set_index("metric"), caption)
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

if ss.get("_report"):
    files, tables = ss["_report"]
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
            widgets.table(df, digits=4)
            st.download_button(f"{name}.csv", files[f"{name}.csv"], f"{name}.csv", mime="text/csv",
                               key=f"rp_dl_{name}")

st.divider()
st.markdown("**Reload a settings file** (from this page or the CLI's `--save-settings`)")


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
        st.error("; ".join(probs) + " - nothing was changed.", icon=":material/error:")
    else:
        st.success(f"Settings from {ss['_settings_loaded']} applied.", icon=":material/check_circle:")
