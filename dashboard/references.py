"""The papers the dashboard cites, by author and year: the list shown at the foot of every page
(dashboard.shell.guard) and in docs/dashboard.md. Plain data, no streamlit."""
from __future__ import annotations

#: (short citation as written on screen, full reference)
REFERENCES: tuple[tuple[str, str], ...] = (
    ("Buckley & Voorhees 2000", "C. Buckley, E. M. Voorhees. Evaluating evaluation measure stability. SIGIR 2000."),
    ("Carterette 2012", "B. Carterette. Multiple testing in statistical analysis of systems-based information "
                        "retrieval experiments. ACM TOIS 30(1), 2012."),
    ("Sakai 2004", "T. Sakai. Ranking the NTCIR systems based on multigrade relevance. AIRS 2004."),
    ("Sakai 2005", "T. Sakai. The effect of topic sampling in sensitivity comparisons of information retrieval "
                   "metrics. NTCIR-5, 2005."),
    ("Sakai 2006", "T. Sakai. Give me just one highly relevant document: P-measure. SIGIR 2006 (poster)."),
    ("Sakai 2007", "T. Sakai. On the properties of evaluation metrics for finding one highly relevant document. "
                   "IPSJ Transactions on Databases (TOD) 48, 2007."),
    ("Sakai SIGIR 2007", "T. Sakai. Alternatives to bpref. SIGIR 2007 (condensed lists)."),
    ("Sakai 2012", "T. Sakai. Evaluation with informational and navigational intents. WWW 2012 "
                   "(randomised Tukey HSD)."),
    ("Sakai 2014", "T. Sakai. Statistical reform in information retrieval? SIGIR Forum 48(1), 2014."),
    ("Sakai 2016", "T. Sakai. Topic set size design. Information Retrieval Journal 19(3), 2016."),
    ("Sakai 2018", "T. Sakai. Topic set size design for paired and unpaired data. ICTIR 2018."),
    ("Voorhees & Buckley 2002", "E. M. Voorhees, C. Buckley. The effect of topic set size on retrieval experiment "
                                "error. SIGIR 2002."),
    ("Webber et al. 2008", "W. Webber, A. Moffat, J. Zobel. Score standardization for inter-collection comparison "
                           "of retrieval systems. SIGIR 2008."),
    ("Okabe & Ito 2008", "M. Okabe, K. Ito. Color universal design (CUD): how to make figures and presentations "
                         "that are friendly to colorblind people. 2008 (the charts' palette)."),
    ("Tol 2021", "P. Tol. Colour schemes. SRON technical note, 2021 (the 'muted' scheme of the further metrics)."),
)


def as_markdown() -> str:
    return "\n".join(f"- **{short}**: {full}" for short, full in REFERENCES)
