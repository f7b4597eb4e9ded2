"""``-Z Zmean_file``: trec_eval's z-scores (``get_zscores.c``, ``convert_zscores.c``).

The file holds ``qid measure_name mean std_dev`` lines. Each per-topic value (after ``-c``'s clean-up) becomes
``(value - mean) / std_dev``; with a zero ``std_dev`` it becomes 0 if it equals the mean; a topic or value name the
file lacks gets -1000000 (trec_eval's ``MISSING_ZSCORE_VALUE``). Summaries are then taken over the z-scores, and
every number prints as ``Z%-22s\\t%s\\t%6.4f`` (counts too); ``runid`` and ``relstring`` print as without ``-Z``.
"""
from __future__ import annotations

from ..io.errors import InputError
from ._read import read_file
from ._table import c_atof

__all__ = ["read_zscores", "MISSING_ZSCORE_VALUE"]

MISSING_ZSCORE_VALUE = -1000000.0


def read_zscores(path: str) -> dict[tuple[str, str], tuple[float, float]]:
    """``{(qid, measure_name): (mean, std_dev)}`` from a z-score file (four fields a line)."""
    out: dict[tuple[str, str], tuple[float, float]] = {}
    for i, line in enumerate(read_file(path).decode("utf-8").split("\n"), 1):
        f = line.split()
        if not f:
            continue
        if len(f) != 4:
            raise InputError(f"expected 4 fields (qid measure mean std_dev), found {len(f)}", file=path, line=i,
                             text=line, hint="write 'qid measure_name mean std_dev' lines")
        out.setdefault((f[0], f[1]), (c_atof(f[2]), c_atof(f[3])))
    return out


def convert(value: float, qid: str, name: str, table: dict[tuple[str, str], tuple[float, float]]) -> float:
    """One per-topic value as trec_eval's ``te_convert_to_zscore`` converts it."""
    got = table.get((qid, name))
    if got is None:
        return MISSING_ZSCORE_VALUE
    mean, std = got
    if std:
        return (value - mean) / std
    return 0.0 if value == mean else MISSING_ZSCORE_VALUE
