"""Root pytest configuration: the optional Dask path's doctest needs Dask (``evalcore[dask]``)."""
import importlib.util

collect_ignore = [] if importlib.util.find_spec("dask") else ["evalcore/meta/on_dask.py"]
