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
#: The distribution (the name on PyPI, ``pip install evalcore-ir``) that installs this import package. The
#: PyPI name ``evalcore`` belongs to an unrelated project that installs a top-level ``evalcore`` too: the two
#: must not be installed together (docs/install.md).
DISTRIBUTION = "evalcore-ir"
#: the unrelated distribution whose top-level module has the same name
OTHER_DISTRIBUTION = "evalcore"

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


def provenance() -> list[str]:
    """Which distribution is running, in lines: the import package's version and folder, the installed
    :data:`DISTRIBUTION` (or that none is: a source checkout), and a warning when the unrelated PyPI project
    :data:`OTHER_DISTRIBUTION` is installed in the same environment. ``evalcore --version`` and the
    dashboard's About print them. Reads the installed metadata only (no numpy)."""
    import os
    from importlib import metadata

    here = os.path.dirname(os.path.abspath(__file__))
    lines = [f"evalcore {__version__}"]
    try:
        dist = metadata.distribution(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        dist = None
    if dist is None:
        lines.append(f"distribution: {DISTRIBUTION} is not installed; running the source checkout at {here}")
    else:
        where = os.path.abspath(str(dist.locate_file("evalcore")))
        same = os.path.realpath(where) == os.path.realpath(here)
        lines.append(f"distribution: {DISTRIBUTION} {dist.version} (pip install {DISTRIBUTION}); module at {here}"
                     + ("" if same else f" (a checkout; the installed copy is at {where})"))
    try:
        other = metadata.distribution(OTHER_DISTRIBUTION)
    except metadata.PackageNotFoundError:
        other = None
    if other is not None and str(other.metadata["Name"] or "").lower() == OTHER_DISTRIBUTION:
        lines.append(f"warning: the unrelated PyPI project {OTHER_DISTRIBUTION!r} {other.version} is installed here "
                     f"and also installs a module named evalcore; remove it (pip uninstall {OTHER_DISTRIBUTION}) "
                     f"and reinstall {DISTRIBUTION} (docs/install.md)")
    return lines


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
