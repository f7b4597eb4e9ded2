"""Evaluate the metrics themselves: rank correlation, swap method, bootstrap
sensitivity, stability and randomised Tukey HSD.

Everything takes score matrices ``{metric label: (n_runs, n_topics) array}``
(from :func:`evalcore.score_matrices` or :func:`read_score_csv`) and returns
tidy DataFrames in small result dataclasses. Every long function takes a
``seed`` (numpy Generator inside, no global state) and a ``progress``
callback: it is called with the fraction done (0..1) at least every ~5% of
the work; returning ``True`` raises :class:`Cancelled`. :func:`repeat` runs
swap, bootstrap, stability or Tukey several times with derived seeds and
reports every summary figure's mean, sd and min-max over repetitions.

Papers (numbered as in docs/metrics.md "Sources"): 003 Sec. 4 (Kendall Eq. 8-9, swap Fig. 4, bootstrap
Fig. 5-7), 004 (topic sampling, swap rule), 002 (stability), Sakai 2012 /
Carterette 2012 (randomised Tukey HSD), Yilmaz et al. 2008 (tau_ap); beyond
the papers: every run pair with CIs, effect sizes, five paired tests and
Holm/BH corrections (pairs.py: Sakai 2014/2018, Carterette 2012), score
standardisation (standardise.py: Webber et al. 2008, Sakai 2016) and topic
set size design (topicsets.py: Sakai 2016, 2018).
"""
from ._common import Cancelled
from .bootstrap import BootstrapResult, bootstrap_samples, bootstrap_sensitivity, paired_t
from .correlation import (
                          CorrelationResult,
                          correlation_matrix,
                          gain_correlation_table,
                          kendall_tau,
                          kendall_test,
                          spearman_rho,
                          tau_ap,
)
from .pairs import CORRECTIONS, TESTS, PairsResult, adjust_pvalues, pair_statistics
from .repeat import RepeatResult, derive_seeds, order_share, repeat
from .sampling import SAMPLINGS, sample_topics
from .scores import read_score_csv, subset_runs, top_runs
from .stability import StabilityResult, stability
from .standardise import STANDARDISATIONS, standardise, standardise_scores
from .swap import SwapResult, swap_method
from .topic_bootstrap import TopicBootstrapResult, claim_shares, topic_bootstrap
from .topicsets import (
                          DESIGNS,
                          ESTIMATORS,
                          default_estimator,
                          design_variance,
                          estimator_sizes,
                          min_detectable_difference,
                          power_curve,
                          residual_variance,
                          topic_set_size,
                          variance_for,
                          within_system_variance,
)
from .tukey import TukeyResult, tukey_hsd
from .verdict import CLAIM_003, CLAIM_003_TEXT, gain_choice_verdict, order_claim_verdict

__all__ = [
    "Cancelled",
    "kendall_tau", "kendall_test", "spearman_rho", "tau_ap", "correlation_matrix", "CorrelationResult",
    "gain_correlation_table",
    "sample_topics", "SAMPLINGS",
    "swap_method", "SwapResult",
    "bootstrap_sensitivity", "BootstrapResult", "bootstrap_samples", "paired_t",
    "stability", "StabilityResult",
    "tukey_hsd", "TukeyResult",
    "repeat", "RepeatResult", "derive_seeds", "order_share",
    "read_score_csv", "top_runs", "subset_runs",
    "pair_statistics", "PairsResult", "adjust_pvalues", "TESTS", "CORRECTIONS",
    "standardise", "standardise_scores", "STANDARDISATIONS",
    "topic_set_size", "min_detectable_difference", "power_curve", "residual_variance", "variance_for", "DESIGNS",
    "design_variance", "within_system_variance", "ESTIMATORS", "default_estimator", "estimator_sizes",
    "topic_bootstrap", "TopicBootstrapResult", "claim_shares", "gain_choice_verdict",
    "CLAIM_003", "CLAIM_003_TEXT", "order_claim_verdict",
]
