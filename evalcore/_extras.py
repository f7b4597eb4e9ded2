"""Optional dependencies: which extra of pyproject.toml installs each, and the error that says so.

``evalcore`` itself needs numpy and pyarrow; scipy (``evalcore-ir[stats]``: the pair statistics, topic set
sizes, standardised scores), Dask (``evalcore-ir[dask]``) and Streamlit / plotly (``evalcore-ir[app]``) are
imported where they are used. Without one, the call ends in a ``ModuleNotFoundError`` that names the
``pip install`` line, from Python as from the command line, instead of a bare "No module named 'scipy'".
"""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

#: optional dependency -> the extra of pyproject.toml that installs it
EXTRAS = {"scipy": "stats", "streamlit": "app", "plotly": "app", "dask": "dask", "distributed": "dask"}


def missing_extra(e: ModuleNotFoundError) -> tuple[str, str] | None:
    """(top-level module, extra) when ``e`` is about an optional dependency, else None."""
    top = (e.name or "").split(".")[0]
    extra = EXTRAS.get(top)
    return None if extra is None else (top, extra)


@contextmanager
def needs(what: str) -> Iterator[None]:
    """Around the import of an optional dependency: its absence becomes a ModuleNotFoundError naming ``what``
    needs it and the extra to install (``e.name`` stays the module, so callers can still tell which).

    >>> import sys
    >>> saved = sys.modules.get("scipy")
    >>> sys.modules["scipy"] = None          # as if scipy were not installed
    >>> try:
    ...     with needs("evalcore.meta.pair_statistics"):
    ...         import scipy
    ... except ModuleNotFoundError as e:
    ...     print(e)
    evalcore.meta.pair_statistics needs scipy, which is not installed: pip install "evalcore-ir[stats]"
    >>> if saved is None: del sys.modules["scipy"]
    ... else: sys.modules["scipy"] = saved
    """
    try:
        yield
    except ModuleNotFoundError as e:
        found = missing_extra(e)
        if found is None:
            raise
        top, extra = found
        raise ModuleNotFoundError(f'{what} needs {top}, which is not installed: pip install "evalcore-ir[{extra}]"',
                                  name=top) from None
