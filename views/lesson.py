"""Lesson: Sakai 2007 (003) in four steps a lecturer clicks through; every step is an address (?step=N).

1. Fig. 3's systems X, Y, Z, the perfect inverse and the ideal list under RR, O, P, P+, NWRR (and the
   sidebar's other metrics), beside the values 003 prints; 2. the gain change that flips O (2:1.5:1);
3. the preferred rank r_p against r_1; 4. discriminative power and rank correlation on the data loaded,
with their uncertainty; every number beside the paper's with a verdict (dashboard.paper_checks). Computation:
dashboard.teaching, dashboard.claims, dashboard.scoring, dashboard.paper_checks.
"""
import streamlit as st

from dashboard import claims, lesson, live, paper_checks, safe, scoring, shell, state, teaching, widgets

ss = st.session_state
s, full, c = shell.setup_analysis()

st.title("Sakai 2007 in four steps")
step = lesson.navigation()
st.header(f"{step}. {lesson.STEPS[step]}")

if step == 1:
    extra = [k for k in s.metric_keys if k not in teaching.LESSON_METRICS]
    widgets.markdown("Topic 3 has **one S-, one A- and one B-relevant** document. Gains S:A:B = 3:2:1, "
                "NWRR penalties 2:3:4 (Sakai 2007's defaults). **(paper)**: the value the paper prints.")
    t = teaching.fig3_table()
    agrees, verdict = paper_checks.fig3_agreement(t)
    short = {k: v for key in teaching.LESSON_METRICS for k, v in
             ((key, teaching.SHORT[key]), (f"{key} (003)", f"{teaching.SHORT[key]} (paper)"))}
    lesson.table(t.rename(columns=short).assign(**{"as paper?": agrees}), "Sakai 2007 Fig. 3: one topic, five systems")
    widgets.markdown(verdict)
    if extra:
        widgets.caption("The sidebar's other metrics on the same lists:")
        lesson.table(teaching.fig3_values(extra), "Sakai 2007 Fig. 3's systems under the sidebar's other metrics")
    widgets.markdown("**RR cannot tell X, Z, the inverse and the ideal apart (all 1.00). P separates X from Z; "
                "P+ also the inverse from the ideal.** "
                "Z finds the S document at rank 2: P rewards it (0.86), O and NWRR ignore it (0.50, as X).")
elif step == 2:
    gains = {"3:2:1 (paper)": teaching.GAINS_003, "2:1.5:1": teaching.GAINS_FLIP}
    if s.K == 3 and tuple(s.gains) not in gains.values():
        gains[f"{state.paper(s.gains)} (sidebar)"] = tuple(s.gains)
    f = teaching.o_flip(gains)
    widgets.markdown("X = [B]; Y = [-, S]. Which is better depends on the gains, not on the metric's formula.")
    cols = st.columns(2)
    for col, (name, _) in zip(cols, list(gains.items())[:2], strict=True):
        x, y = f.loc["X", name], f.loc["Y", name]
        col.metric(f"O(X) at {name}", f"{x:.2f}")
        col.metric(f"O(Y) at {name}", f"{y:.2f}", delta=f"{y - x:+.2f} vs X")
    lesson.table(f, "O-measure of X and Y under two gain settings")
    widgets.markdown(paper_checks.o_flip_agreement(f, "2:1.5:1", "3:2:1 (paper)"))
    widgets.markdown("**3:2:1: Y beats X. 2:1.5:1: X beats Y** (Sakai 2007 Sec. 3.2). NWRR always "
                     "prefers X, whatever its "
                "penalties: it cannot express this choice.")
elif step == 3:
    widgets.markdown("**r_1**: the first relevant document (O, NWRR, RR stop there). **r_p**: the first document of "
                "the highest level in the list (P, P+ read on to it; Sakai 2007 Sec. 3.3).")
    lesson.table(teaching.fig3_ranks(), "r_1 and r_p on Fig. 3's systems")
    r1, rp = scoring.first_and_preferred(c, s)
    sm = teaching.preferred_rank_summary(r1, rp)
    if sm["pairs"]:
        m1, m2, m3 = st.columns(3)
        m1.metric("r_p > r_1 on this data", f"{sm['share']:.0%}",
                  help=f"{sm['later']:,} of {sm['pairs']:,} run-topic pairs with a relevant document retrieved")
        m2.metric("median r_p - r_1 there", f"{sm['median_gap']:g}")
        m3.metric("largest r_p", f"{sm['max_rp']:,}", help="Sakai 2007 Appendix Tables 7-9: 852 to 980 on its four "
                  "NTCIR data sets")
        widgets.caption(f"{safe.md(c.name or 'This collection')}: {c.n_runs} runs x {c.n_topics} topics; over the "
                   f"{sm['pairs']:,} run-topic pairs that retrieve a relevant document.")
        widgets.markdown(paper_checks.max_rp(c, rp)["text"])
    else:
        st.info("No run retrieves a relevant document on this data: r_1 and r_p are undefined.")
else:
    widgets.markdown(f"Sakai 2007 Tables 3-4: **{claims.CLAIM_TEXT}** in discriminative power, on four "
                     "NTCIR data sets. "
                "Does it hold on the data loaded?")
    if c.n_runs < 2:
        st.warning(f"Discriminative power compares run pairs: this collection has {c.n_runs} run.")
    else:
        for m in ("bootstrap", "swap"):
            claims.show(claims.compute(m, c, s, *claims.page_params(m, c)), compact=True)
    if c.n_runs >= 3:
        cmp = paper_checks.table2(c, s)
        lesson.table(paper_checks.tau_frame(cmp, teaching.TAU_PAIRS),
                     "Kendall's tau between one-document metrics beside Sakai 2007 Table 2")
        paper_checks.findings(cmp, compact=True)
lesson.buttons(step)
live.finish_live()
