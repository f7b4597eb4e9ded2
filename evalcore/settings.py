"""The settings file: one reader and one writer, shared by the CLI and the dashboard.

A settings file is a JSON object, optionally wrapped as ``{"settings": {...}}``
(the Report page's download and ``evalcore evaluate --save-settings`` write
the wrapped form). Every key is optional; an unknown key is an error (a typo
such as ``"beat"`` must not be ignored silently)::

    gains          list of K numbers > 0 (at most MAX_GAIN = 1e6), ASCENDING levels L1..LK,
                   or a string in the papers' notation, highest level first ("10:5:1")
    penalties      the same, every value > 1 (NWRR / WRR)
    beta           number, 0 <= beta <= 1000
    cutoffs        list of whole numbers (or one), each 1..MAX_CUTOFF
    rel_threshold  whole number 1..MAX_LEVEL
    log_base       number > 1 (nDCG's discount)
    mean           "arithmetic" | "geometric"
    names          how metric names are read: "evalcore" | "ir_measures" | "trec_eval" | "ntcireval"
    metrics        list of metric names (any name :func:`evalcore.registry.parse_metric` knows)
    top_n, top_by  the dashboard's top-N filter (0 = all runs) and the metric ranking it
    dataset        "sim" | "examples" | "upload"
    simulated      {n_topics, n_runs, seed};  swap {sampling, subset_size, B, seed}
    bootstrap      {alpha, B, seed};  stability {subset_size, B, seed}
    collection, collection_fingerprint, gains_paper_notation   informational

**Atomic and type-checked**: :func:`parse_settings` parses and validates the
whole file (finite numbers only - ``NaN``/``Infinity`` are refused; right
types - ``true`` is not a number; bounded sizes and nesting) and only then
returns a new :class:`dict`; on any problem it raises :class:`SettingsError`
naming the key, what was expected and what was found, and the caller changes
nothing. Values are returned normalised (gains/penalties as ascending lists
of floats, cutoffs as a list of ints, metrics as given).

**Precedence** (CLI): an option given on the command line overrides the
file, which overrides :data:`DEFAULTS`.

This module also holds the presets, bounds and defaults the dashboard's
widgets use, so each rule is written once (one source of truth: the CLI, the app and the settings file read the same
rules).
"""
from __future__ import annotations

import json
import math
import re
from typing import Any

from .gains import GAIN_PRESETS

__all__ = ["SettingsError", "parse_settings", "read_settings", "dump_settings", "DEFAULTS", "LIMITS",
           "PRESETS", "GAIN_MIN", "GAIN_MAX", "GAIN_STEP", "WIDGET_BOUNDS", "SIM_MAX_TOPICS", "SIM_MAX_RUNS",
           "MAX_BYTES", "MAX_DEPTH",
           "MAX_GAIN"]

#: Largest settings file read (bytes), deepest JSON nesting accepted.
MAX_BYTES = 1_000_000
MAX_DEPTH = 4
#: Bounds of the file's values (generous: whatever the CLI accepts).
MAX_LEVEL = 100
MAX_CUTOFF = 1_000_000
MAX_LIST = 200
#: Largest gain or penalty (only ratios matter; 1e308 would overflow cumulated gains to inf).
MAX_GAIN = 1e6

#: Defaults of the metric settings when neither an option nor the file gives one.
DEFAULTS = {"gains": None, "penalties": None, "beta": 1.0, "cutoffs": [10, 1000], "rel_threshold": 1,
            "log_base": 2.0, "mean": "arithmetic", "metrics": None, "names": None}

#: The papers' gain presets offered one click away in the app (paper notation, highest level first).
PRESETS = tuple(k for k in GAIN_PRESETS if k != "2:1.5:1")
#: The app's gain sliders.
GAIN_MIN, GAIN_MAX, GAIN_STEP = 0.1, 30.0, 0.1
#: The app's widget ranges (values from a file or URL outside them are clamped by the app).
#: Documented limits of the simulated collection a file or URL may ask for
#: (``?nt=&nr=``): 200 topics x 100 runs x depth 1000 is 20 MB of levels, so a
#: hostile link cannot make a session allocate more (docs/reliability.md).
SIM_MAX_TOPICS, SIM_MAX_RUNS = 200, 100
WIDGET_BOUNDS = {
    "sim_topics": (2, SIM_MAX_TOPICS), "sim_runs": (2, SIM_MAX_RUNS), "beta": (0.0, 10.0), "cutoff": (1, 1000),
    "top_n": (0, 1000), "sw_B": (10, 100000), "bs_B": (10, 100000), "st_B": (10, 100000),
    "bs_alpha": (0.001, 0.5), "sw_subset": (0, 10000), "st_subset": (0, 10000), "kc_level": (0, 50),
    "sim_seed": (0, 10**6), "sw_seed": (0, 10**6), "bs_seed": (0, 10**6), "st_seed": (0, 10**6),
}

_SAMPLINGS = ("replacement", "disjoint", "independent")
#: key -> (kind, bounds or choices); kinds: int, float, choice, str, int|None
#: setting -> (kind, its bounds or choices): what _scalar checks
LIMITS: dict[str, tuple[str, Any]] = {
    "beta": ("float", (0.0, 1000.0)),
    "rel_threshold": ("int", (1, MAX_LEVEL)),
    "log_base": ("float", (1.0 + 1e-9, 1e6)),
    "mean": ("choice", ("arithmetic", "geometric")),
    "names": ("choice", ("evalcore", "ir_measures", "trec_eval", "ntcireval")),
    "top_n": ("int", (0, 100_000)),
    "top_by": ("metric", None),
    "dataset": ("choice", ("sim", "examples", "upload")),
    "collection": ("str", None),
    "collection_fingerprint": ("str", None),
}
_GROUPS: dict[str, dict[str, tuple[str, tuple[Any, ...]]]] = {
    "simulated": {"n_topics": ("int", (1, 100_000)), "n_runs": ("int", (1, 100_000)), "seed": ("int", (0, 2**32 - 1))},
    "swap": {"sampling": ("choice", _SAMPLINGS), "subset_size": ("int|None", (0, 10**7)),
             "B": ("int", (1, 10**7)), "seed": ("int", (0, 2**32 - 1))},
    "bootstrap": {"alpha": ("float", (1e-9, 0.999999)), "B": ("int", (1, 10**7)), "seed": ("int", (0, 2**32 - 1))},
    "stability": {"subset_size": ("int|None", (0, 10**7)), "B": ("int", (1, 10**7)), "seed": ("int", (0, 2**32 - 1))},
}
_LEVEL_LISTS = {"gains": (0.0, "> 0"), "penalties": (1.0, "> 1")}
KNOWN_KEYS = tuple(["gains", "gains_paper_notation", "penalties", "cutoffs", "metrics"] + list(LIMITS) + list(_GROUPS))


class SettingsError(ValueError):
    """A settings file that cannot be used, and why (the file is then ignored as a whole)."""


def _type(v) -> str:
    return {bool: "true/false", int: "a whole number", float: "a number", str: "a string", list: "a list",
            dict: "an object", type(None): "null"}.get(type(v), type(v).__name__)


def _number(where: str, v, lo: float, hi: float, *, integer: bool):
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise SettingsError(f"{where} must be {'a whole number' if integer else 'a number'}; got {_type(v)} {v!r}")
    if not math.isfinite(v):
        raise SettingsError(f"{where} must be a finite number; got {v!r}")
    if integer and v != int(v):
        raise SettingsError(f"{where} must be a whole number; got {v!r}")
    if not lo <= v <= hi:
        raise SettingsError(f"{where} must be between {lo:g} and {hi:g}; got {v!r}")
    return int(v) if integer else float(v)


def _scalar(where: str, kind: str, spec, v, names: str | None = None):
    if kind == "int|None":
        return None if v is None else _number(where, v, *spec, integer=True)
    if kind in ("int", "float"):
        return _number(where, v, *spec, integer=kind == "int")
    if not isinstance(v, str):
        raise SettingsError(f"{where} must be a string; got {_type(v)} {v!r}")
    if len(v) > 1000:
        raise SettingsError(f"{where} is longer than 1000 characters")
    if kind == "choice" and v not in spec:
        raise SettingsError(f"{where} must be one of {', '.join(spec)}; got {v!r}")
    if kind in ("metric", "metrics"):
        _metric(where, v, one=kind == "metric", names=names)
    return v


def _metric(where: str, name: str, one: bool, names: str | None) -> None:
    """A known metric name; in a ``metrics`` list a cutoff metric may come without @l (then --cutoffs)."""
    from .registry import expand_metrics, parse_metric

    try:
        parse_metric(name, names) if one else expand_metrics([name], names=names)
    except ValueError as e:
        raise SettingsError(f"{where}: {e}") from None


def _levels(key: str, v) -> list[float]:
    lo, what = _LEVEL_LISTS.get(key, _LEVEL_LISTS["gains"])
    if isinstance(v, str):
        if len(v) > 10_000:
            raise SettingsError(f"{key} is longer than 10000 characters")
        try:
            vals = [float(x) for x in v.split(":")][::-1]
        except ValueError:
            raise SettingsError(f"{key} must be numbers separated by ':' (papers' notation, highest level "
                                f"first, e.g. \"3:2:1\"); got {v!r}") from None
    elif isinstance(v, list):
        vals = v
    else:
        raise SettingsError(f"{key} must be a list of numbers (ascending levels L1..LK) or a string such as "
                            f"\"3:2:1\" (highest level first); got {_type(v)} {v!r}")
    if not 1 <= len(vals) <= MAX_LEVEL:
        raise SettingsError(f"{key} must give 1 to {MAX_LEVEL} values (one per level); got {len(vals)}")
    out = [_number(f"{key}[{i}]", x, -MAX_GAIN, MAX_GAIN, integer=False) for i, x in enumerate(vals)]
    for i, x in enumerate(out, 1):
        if not x > lo:
            raise SettingsError(f"{key} must be {what} for every level; got {x:g} for level {i}")
    return out


_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*+"', re.DOTALL)
_BRACKETS = re.compile(r"[\[\]{}]")


def _nesting(text: str) -> int:
    """How deep ``[`` / ``{`` nest in a JSON text, counted without recursion and before it is parsed
    (strings removed first): a 600-deep file must be refused before a recursive parser or walker
    meets it, whatever stack the caller already uses."""
    depth = deepest = 0
    for m in _BRACKETS.finditer(_STRINGS.sub("", text)):
        depth += 1 if m.group() in "[{" else -1
        deepest = max(deepest, depth)
    return deepest


def _refuse_constant(name: str):
    raise SettingsError(f"{name} is not a finite number (JSON has no {name}; give a number or leave the key out)")


def parse_settings(text: str | bytes, source: str = "settings") -> dict:
    """Validate a whole settings document and return the normalised settings (see the module doc).

    >>> parse_settings('{"settings": {"gains": "10:5:1", "beta": 2}}')
    {'gains': [1.0, 5.0, 10.0], 'beta': 2.0}
    >>> parse_settings('{"top_n": "abc"}')
    Traceback (most recent call last):
    ...
    evalcore.settings.SettingsError: settings: top_n must be a whole number; got a string 'abc'
    """
    try:
        return _parse(text, source)
    except SettingsError as e:
        msg = str(e)
        raise SettingsError(msg if msg.startswith(source) else f"{source}: {msg}") from None


def _parse(text, source) -> dict:
    if isinstance(text, (bytes, bytearray)):
        if len(text) > MAX_BYTES:
            raise SettingsError(f"larger than {MAX_BYTES} bytes; a settings file is a few hundred")
        try:
            text = bytes(text).decode("utf-8-sig")
        except UnicodeDecodeError:
            raise SettingsError("not UTF-8 text; save the settings file as UTF-8") from None
    if len(text) > MAX_BYTES:
        raise SettingsError(f"larger than {MAX_BYTES} characters; a settings file is a few hundred")
    deep = _nesting(text)
    if deep > MAX_DEPTH:
        raise SettingsError(f"nested deeper than {MAX_DEPTH} levels ({deep} here); a settings file is a flat "
                            "object (a few groups such as \"swap\": {...})")
    try:
        data = json.loads(text, parse_constant=_refuse_constant)
    except json.JSONDecodeError as e:
        raise SettingsError(f"line {e.lineno}: not valid JSON ({e.msg})") from None
    except RecursionError:  # not reached: the nesting was counted above
        raise SettingsError(f"nested deeper than {MAX_DEPTH} levels; a settings file is a flat object") from None
    if not isinstance(data, dict):
        raise SettingsError(f"a settings file holds a JSON object; got {_type(data)}")
    if set(data) == {"settings"} or ("settings" in data and isinstance(data["settings"], dict)):
        data = data["settings"]
        if not isinstance(data, dict):
            raise SettingsError(f"\"settings\" must be an object; got {_type(data)}")
    names = _scalar("names", *LIMITS["names"], data["names"]) if data.get("names") is not None else None
    unknown = [k for k in data if k not in KNOWN_KEYS]
    if unknown:
        raise SettingsError(f"unknown key {unknown[0]!r}; known keys: {', '.join(KNOWN_KEYS)}")
    out: dict = {}
    for key, v in data.items():
        if key in _LEVEL_LISTS:
            out[key] = None if v is None else _levels(key, v)
        elif key == "gains_paper_notation":
            g = _levels("gains_paper_notation", v) if v is not None else None
            if "gains" in data and data["gains"] is not None and g != _levels("gains", data["gains"]):
                raise SettingsError(f"gains {data['gains']!r} and gains_paper_notation {v!r} disagree")
            if "gains" not in data or data["gains"] is None:
                out["gains"] = g
        elif key == "cutoffs":
            vals = v if isinstance(v, list) else [v]
            if not 1 <= len(vals) <= MAX_LIST:
                raise SettingsError(f"cutoffs must give 1 to {MAX_LIST} whole numbers; got {len(vals)}")
            out[key] = [_number(f"cutoffs[{i}]", x, 1, MAX_CUTOFF, integer=True) for i, x in enumerate(vals)]
        elif key == "metrics":
            if v is None:
                out[key] = None
                continue
            if not isinstance(v, list):
                raise SettingsError(f"metrics must be a list of metric names, e.g. [\"AP\", \"nDCG@10\"]; "
                                    f"got {_type(v)} {v!r}")
            if not 1 <= len(v) <= MAX_LIST:
                raise SettingsError(f"metrics must list 1 to {MAX_LIST} names; got {len(v)}")
            for i, m in enumerate(v):
                _scalar(f"metrics[{i}]", "metrics", None, m, names)
            out[key] = list(v)
        elif key in LIMITS:
            out[key] = _scalar(key, *LIMITS[key], v, names)
        else:  # a group
            if not isinstance(v, dict):
                raise SettingsError(f"{key} must be an object with keys {', '.join(_GROUPS[key])}; got {_type(v)}")
            bad = [k for k in v if k not in _GROUPS[key]]
            if bad:
                raise SettingsError(f"unknown key {key}.{bad[0]}; known: {', '.join(_GROUPS[key])}")
            out[key] = {k: _scalar(f"{key}.{k}", *_GROUPS[key][k], x) for k, x in v.items()}
    return out


def read_settings(path) -> dict:
    """:func:`parse_settings` of a file (errors name the file). Only a regular file is read, and
    never past :data:`MAX_BYTES` whatever its size on disk says (``/dev/zero`` or a FIFO is refused)."""
    from .io.errors import InputError
    from .io.limits import read_limited

    try:
        data = read_limited(path, MAX_BYTES, hint="a settings file is a few hundred bytes; give the file "
                            "saved by the app's Report page or by --save-settings")
    except InputError as e:
        raise SettingsError(f"settings file {e.file}: {e.message}" + (f"; {e.hint}" if e.hint else "")) from None
    return parse_settings(data, str(path))


def dump_settings(settings: dict) -> str:
    """The settings as the file text (``{"settings": {...}}``), validated first so it always reads back."""
    text = json.dumps({"settings": settings}, indent=1, allow_nan=False)
    parse_settings(text, "settings to save")
    return text + "\n"
