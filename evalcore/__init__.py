"""evalcore: graded-relevance IR evaluation and the evaluation of metrics.

Load a test collection once into a dense relevance-level tensor
(:class:`Collection`), evaluate every metric under any gains / beta /
penalties / cutoffs (:func:`evaluate`), and evaluate the metrics themselves
(:mod:`evalcore.meta`). Pure numpy/pandas: no Streamlit, no plotting.

The names below are imported on first use (PEP 562), so that ``import
evalcore`` - and ``evalcore --version`` / ``--help`` - does not pay for numpy,
pandas and pyarrow (docs/benchmarks.md, "Start-up").
"""
from __future__ import annotations

import importlib

__version__ = "0.1.0"

#: public name -> the module that defines it
_EXPORTS = {
    "Collection": "collection",
    "LoadReport": "collection",
    "InputError": "io",
    "load_collection": "io",
    "evaluate": "registry",
    "score_matrix": "registry",
    "score_matrices": "registry",
    "parse_metric": "registry",
    "MetricSpec": "registry",
    "METRIC_KEYS": "registry",
    "GAIN_PRESETS": "gains",
    "resolve_gains": "gains",
    "resolve_penalties": "gains",
    "simulated_collection": "simulate",
    "paper_examples": "simulate",
    "to_trec_eval": "writers",
    "to_jsonl": "writers",
    "compare": "comparison",
    "CompareResult": "comparison",
    "gain_sweep": "sweep",
}

__all__ = list(_EXPORTS)


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is not None:
        value = getattr(importlib.import_module(f".{module}", __name__), name)
        globals()[name] = value          # once: later lookups are plain attribute reads
        return value
    try:                                 # submodules (evalcore.registry, evalcore.meta, ...) as attributes
        return importlib.import_module(f".{name}", __name__)
    except ModuleNotFoundError as e:
        if e.name != f"{__name__}.{name}":
            raise
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_EXPORTS))
