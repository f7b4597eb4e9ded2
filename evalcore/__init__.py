"""evalcore: graded-relevance IR evaluation and the evaluation of metrics.

Load a test collection once into a dense relevance-level tensor
(:class:`Collection`), evaluate every metric under any gains / beta /
penalties / cutoffs (:func:`evaluate`), and evaluate the metrics themselves
(:mod:`evalcore.meta`). Pure numpy/pandas: no Streamlit, no plotting.
"""
from .collection import Collection, LoadReport
from .gains import GAIN_PRESETS, resolve_gains, resolve_penalties
from .io import InputError, load_collection
from .registry import METRIC_KEYS, MetricSpec, evaluate, parse_metric, score_matrices, score_matrix
from .simulate import paper_examples, simulated_collection

__all__ = [
    "Collection",
    "LoadReport",
    "InputError",
    "load_collection",
    "evaluate",
    "score_matrix",
    "score_matrices",
    "parse_metric",
    "MetricSpec",
    "METRIC_KEYS",
    "GAIN_PRESETS",
    "resolve_gains",
    "resolve_penalties",
    "simulated_collection",
    "paper_examples",
]
__version__ = "0.1.0"
