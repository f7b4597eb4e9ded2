"""The settings file: one reader and one writer, shared by the CLI and the dashboard.

A settings file is a JSON object, optionally wrapped as ``{"settings": {...}}``
(the Report page's download and ``evalcore evaluate --save-settings`` write
the wrapped form). Every key is optional; an unknown key is an error (a typo
such as ``"beat"`` must not be ignored silently)::

    gains          a string in the papers' notation, HIGHEST LEVEL FIRST ("10:5:1" = S:A:B, read by
                   evalcore.gains.parse_levels exactly as --gains, gains= in Python and ?gains= in the
                   dashboard's address: K values, or 3 mapped onto K levels), or a JSON list of K numbers
                   in ASCENDING level order L1..LK ([1, 5, 10]); every value > 0 and at most MAX_GAIN = 1e6
    penalties      the same, every value > 1 (NWRR / WRR)
    beta           number, 0 <= beta <= 1000
    cutoffs        list of whole numbers (or one), each 1..MAX_CUTOFF
    rel_threshold  whole number 1..MAX_LEVEL
    log_base       number > 1 (nDCG's discount)
    p, f_beta      the measures' own settings, one key per parameter declared with a setting in the metric
                   table (evalcore.specs.SETTING_PARAMS: RBP's persistence p, SetF's beta f_beta), its
                   bounds and default from the declaration
    mean           "arithmetic" | "geometric"
    names          how metric names are read: "evalcore" | "ir_measures" | "trec_eval" | "ntcireval"
    order, depth, condensed, keep_first_duplicate, qrels_format, run_format
                   how the runs are read, as --order, --depth, --condensed, ... (depth null: whole lists)
    topics         the topics each mean runs over: "trec_eval" | "ntcireval" (absent or null: per metric,
                   by its name; :func:`evalcore.registry.topic_policy`)
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
of floats, or the string as given - highest level first, its meaning fixed only
once the collection's levels are known -, cutoffs as a list of ints, metrics as given).

**Precedence** (CLI): an option given on the command line overrides the
file, which overrides :data:`DEFAULTS`.

**One schema**: :data:`FIELDS` declares every key (:class:`Field`: kind, bounds, default, help,
the app's widget and how the app fits it). The reader checks a file against it, the command line
builds its bounded options from it (:func:`evalcore.cli.options.field_option`) and the app fits a
file onto its widgets from it (:func:`evalcore.app_settings.fit_to_app`). The metric parameters'
keys, lower bounds and defaults come from the metric table (:data:`evalcore.registry.PARAMS`); the
file adds only an upper cap where a metric sets none (beta <= 1000, rel_threshold <= MAX_LEVEL,
log_base <= 1e6), a limit on hostile input rather than a property of the metric. An open lower
bound (log_base > 1) is open in the file too.

This module also holds the presets, bounds and defaults the dashboard's
widgets use, so each rule is written once (one source of truth: the CLI, the app and the settings file read the same
rules).
"""
from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

from ._seeds import SEED_MAX
from .gains import GAIN_PRESETS, parse_levels
from .names import CONVENTIONS
from .specs import SETTING_PARAMS, TOPIC_POLICIES

__all__ = ["Field", "FIELDS", "SettingsError", "parse_settings", "read_settings", "dump_settings", "DEFAULTS", "LIMITS",
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
    # the sidebar slider of each measure's own setting, as its declaration gives it (evalcore.specs.Setting)
    **{prm.setting.widget: prm.setting.span for prm in SETTING_PARAMS if prm.setting is not None},
    "sim_seed": (0, 10**6), "sw_seed": (0, 10**6), "bs_seed": (0, 10**6), "st_seed": (0, 10**6),
}

_SAMPLINGS = ("replacement", "disjoint", "independent")
_SEED = (0, SEED_MAX)


@dataclass(frozen=True)
class Field:
    """One key of the settings file, as data: the reader (:func:`parse_settings`), the command line
    (:func:`evalcore.cli.options.field_option`) and the app (:func:`evalcore.app_settings.fit_to_app`)
    read this table, so a bound or a default is written once.

    ``kind``: ``"int"``, ``"float"``, ``"int|None"`` (a whole number or null), ``"choice"`` (one of
    ``choices``), ``"str"``, ``"metric"`` (one metric name), ``"metrics"`` (a list of names),
    ``"bool"`` (true or false), ``"levels"`` (one number per level, > ``low``), ``"paper_levels"``
    (levels in the papers' notation, stored under ``store``), ``"cutoffs"`` (whole numbers ``low..high``) or
    ``"group"`` (an object of ``fields``). ``low`` / ``high``: inclusive bounds (``low_open`` / ``high_open``:
    excluded);
    ``default``: the value used when neither an option nor the file gives one; ``role``: ``"metric"``
    (read by the command line and the app), ``"data"`` (how the command line reads the runs: ``--order``,
    ``--depth``, ``--condensed``, ...; the app's upload options), ``"app"`` (the dashboard's only) or ``"info"``
    (informational, never applied). ``widget``: the app's session key it sets (its range is
    :data:`WIDGET_BOUNDS` [widget]); ``app``: how the app fits it (``"clamp"`` to that range,
    ``"copy"``, ``"snap"`` to the nearest offered level, ``"not_shown"`` with the reason ``why``, or
    the name of a step of :func:`~evalcore.app_settings.fit_to_app`).
    """

    key: str
    kind: str
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    choices: tuple[str, ...] = ()
    default: Any = None
    help: str = ""
    role: str = "app"
    widget: str | None = None
    app: str | None = None
    why: str = ""
    store: str | None = None
    fields: tuple[Field, ...] = ()

    @property
    def bounds(self) -> tuple[float, float]:
        """``(low, high)``: only for a field that has both (every number, levels and cutoffs field)."""
        assert self.low is not None and self.high is not None, f"{self.key} has no bounds"
        return (self.low, self.high)

    @property
    def group(self) -> dict[str, Field]:
        return {f.key: f for f in self.fields}


def _param_field(name: str, *, cap: float, **kw) -> Field:
    """A metric parameter's field: key, kind, lower bound and default from the metric table
    (:data:`evalcore.registry.PARAMS`); ``cap`` bounds the file and the options where the metric
    itself sets no upper bound (a hostile-input limit, not a property of the metric)."""
    from .registry import PARAMS

    p = PARAMS[name]
    return Field(p.name, p.kind, p.low, cap if p.high is None else p.high, low_open=p.low_open, high_open=p.high_open,
                 default=p.default, help=p.doc, role="metric", **kw)


def _setting_fields() -> tuple[Field, ...]:
    """The field of every parameter declared as a setting (:data:`evalcore.specs.SETTING_PARAMS`): its key is
    the parameter's name, its bounds the parameter's (capped by the setting's ``cap``), its widget the
    setting's slider, clamped to its span."""
    return tuple(_param_field(prm.name, cap=prm.setting.cap, widget=prm.setting.widget, app="clamp")
                 for prm in SETTING_PARAMS if prm.setting is not None)


#: Every key of the settings file, in the order the file's error messages list them.
FIELDS: dict[str, Field] = {f.key: f for f in (
    Field("gains", "levels", 0.0, MAX_GAIN, low_open=True, help="gain per relevance level", role="metric",
          app="gains"),
    Field("gains_paper_notation", "paper_levels", 0.0, MAX_GAIN, low_open=True, store="gains", role="info",
          help="the gains in the papers' notation, highest level first"),
    Field("penalties", "levels", 1.0, MAX_GAIN, low_open=True, help="WRR penalty per level", role="metric",
          app="penalties"),
    Field("cutoffs", "cutoffs", 1, MAX_CUTOFF, default=[10, 1000], role="metric", widget="cutoff", app="cutoffs",
          help="cutoffs for nDCG@l, P@l, ... when no @l is given"),
    Field("metrics", "metrics", role="metric", app="metrics", help="metric names"),
    _param_field("beta", cap=1000.0, widget="beta", app="clamp"),
    _param_field("rel_threshold", cap=MAX_LEVEL, app="threshold"),
    _param_field("log_base", cap=1e6, app="not_shown", why="the app's nDCG uses log base 2"),
    *_setting_fields(),
    # how the runs are read (role "data"): the command line's data options, applied when the file is read back
    Field("order", "choice", choices=("score", "rank", "file"), default="score", role="data", widget="up_order",
          app="upload", help="ranking of a TREC run: score (trec_eval's: ties by document id descending), rank, file"),
    Field("depth", "int|None", 1, MAX_CUTOFF, role="data", app="not_shown",
          why="the app evaluates whole lists (the command line's --depth N cuts them)",
          help="evaluate only the top N documents of each list (null: whole lists)"),
    Field("condensed", "bool", default=False, role="data", widget="up_condensed", app="upload",
          help="remove unjudged documents first (condensed lists)"),
    Field("keep_first_duplicate", "bool", default=False, role="data", widget="up_keep_first", app="upload",
          help="keep the first of a document a run lists twice for a topic (default: an error)"),
    Field("qrels_format", "choice", choices=("auto", "trec", "ntcir", "rel"), default="auto", role="data",
          app="not_shown", why="the app sniffs the qrels format", help="the qrels format"),
    Field("run_format", "str", default="auto", role="data", app="not_shown", why="the app sniffs each run's format",
          help="the run format (evalcore.io's names: auto, trec, res, ntcir, jsonl, ...)"),
    Field("mean", "choice", choices=("arithmetic", "geometric"), default="arithmetic", role="metric",
          app="not_shown", why="the app averages over topics arithmetically", help="mean over topics"),
    Field("names", "choice", choices=CONVENTIONS, role="metric", help="how metric names are read"),
    Field("topics", "choice", choices=TOPIC_POLICIES, role="metric", app="topics",
          help="the topics each mean runs over (trec_eval: every qrels topic; ntcireval: only topics with a "
               "relevant document; absent: per metric, by its name)"),
    Field("top_n", "int", 0, 100_000, widget="top_n", app="clamp", help="the top-N filter (0 = all runs)"),
    Field("top_by", "metric", widget="top_by", app="copy", help="the metric the top-N filter ranks by"),
    Field("dataset", "choice", choices=("sim", "examples", "upload"), widget="dataset", app="dataset"),
    Field("collection", "str", role="info"),
    Field("collection_fingerprint", "str", role="info"),
    Field("simulated", "group", app="group", fields=(
        Field("n_topics", "int", 1, 100_000, widget="sim_topics", app="clamp"),
        Field("n_runs", "int", 1, 100_000, widget="sim_runs", app="clamp"),
        Field("seed", "int", *_SEED, widget="sim_seed", app="clamp"))),
    Field("swap", "group", app="group", fields=(
        Field("sampling", "choice", choices=_SAMPLINGS, widget="sw_sampling", app="copy"),
        Field("subset_size", "int|None", 0, 10**7, widget="sw_subset", app="clamp"),
        Field("B", "int", 1, 10**7, widget="sw_B", app="clamp"),
        Field("seed", "int", *_SEED, widget="sw_seed", app="clamp"))),
    Field("bootstrap", "group", app="group", fields=(
        Field("alpha", "float", 1e-9, 0.999999, widget="bs_alpha", app="snap"),
        Field("B", "int", 1, 10**7, widget="bs_B", app="clamp"),
        Field("seed", "int", *_SEED, widget="bs_seed", app="clamp"))),
    Field("stability", "group", app="group", fields=(
        Field("subset_size", "int|None", 0, 10**7, widget="st_subset", app="clamp"),
        Field("B", "int", 1, 10**7, widget="st_B", app="clamp"),
        Field("seed", "int", *_SEED, widget="st_seed", app="clamp"))),
)}
KNOWN_KEYS = tuple(FIELDS)
#: Defaults of the metric settings when neither an option nor the file gives one.
DEFAULTS = {k: f.default for k, f in FIELDS.items() if f.role in ("metric", "data")}
_SCALARS = ("int", "float", "int|None", "choice", "str", "metric", "bool")
#: key -> (kind, bounds or choices) of the file's single values (a view of :data:`FIELDS`)
LIMITS = {k: (f.kind, f.choices or (None if f.low is None else f.bounds)) for k, f in FIELDS.items()
          if f.kind in _SCALARS}


class SettingsError(ValueError):
    """A settings file that cannot be used, and why (the file is then ignored as a whole)."""


def _type(v) -> str:
    return {bool: "true/false", int: "a whole number", float: "a number", str: "a string", list: "a list",
            dict: "an object", type(None): "null"}.get(type(v), type(v).__name__)


def _number(where: str, v, lo: float, hi: float, *, integer: bool, low_open: bool = False,
            high_open: bool = False):
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise SettingsError(f"{where} must be {'a whole number' if integer else 'a number'}; got {_type(v)} {v!r}")
    if not math.isfinite(v):
        raise SettingsError(f"{where} must be a finite number; got {v!r}")
    if integer and v != int(v):
        raise SettingsError(f"{where} must be a whole number; got {v!r}")
    if not lo <= v <= hi or (low_open and v == lo) or (high_open and v == hi):
        raise SettingsError(f"{where} must be between {lo:g} and {hi:g}"
                            f"{' (both excluded)' if low_open and high_open else ''}; got {v!r}")
    return int(v) if integer else float(v)


def _scalar(where: str, kind: str, spec, v, names: str | None = None, low_open: bool = False,
            high_open: bool = False):
    if kind == "int|None":
        return None if v is None else _number(where, v, *spec, integer=True)
    if kind in ("int", "float"):
        return _number(where, v, *spec, integer=kind == "int", low_open=low_open, high_open=high_open)
    if kind == "bool":
        if not isinstance(v, bool):
            raise SettingsError(f"{where} must be true or false; got {_type(v)} {v!r}")
        return v
    if not isinstance(v, str):
        raise SettingsError(f"{where} must be a string; got {_type(v)} {v!r}")
    if len(v) > 1000:
        raise SettingsError(f"{where} is longer than 1000 characters")
    if kind == "choice" and v not in spec:
        raise SettingsError(f"{where} must be one of {', '.join(spec)}; got {v!r}")
    if kind in ("metric", "metrics"):
        _metric(where, v, one=kind == "metric", names=names)
    return v


def _field_scalar(f: Field, v, names: str | None = None, where: str | None = None):
    """One value of a scalar field (int, float, int|None, choice, str, metric), checked."""
    spec = f.choices or (None if f.low is None else f.bounds)
    return _scalar(where or f.key, f.kind, spec, v, names, low_open=f.low_open, high_open=f.high_open)


def _metric(where: str, name: str, one: bool, names: str | None) -> None:
    """A known metric name; in a ``metrics`` list a cutoff metric may come without @l (then --cutoffs)."""
    from .registry import expand_metrics, parse_metric

    try:
        parse_metric(name, names) if one else expand_metrics([name], names=names)
    except ValueError as e:
        raise SettingsError(f"{where}: {e}") from None


def _levels(key: str, v, f: Field | None = None) -> list[float] | str:
    """Gains or penalties (``f``: the field whose bounds apply; the key's own by default): a list
    (ascending L1..LK) comes back as floats, a string (highest level first, read by
    :func:`evalcore.gains.parse_levels`) as the string, its values checked."""
    f = f or FIELDS[key]
    if isinstance(v, str):
        try:
            vals = parse_levels(v, key)[::-1]          # ascending, for the checks
        except ValueError as e:
            raise SettingsError(str(e)) from None
    elif isinstance(v, list):
        vals = v
    else:
        raise SettingsError(f"{key} must be a list of numbers (ascending levels L1..LK) or a string such as "
                            f"\"3:2:1\" (highest level first); got {_type(v)} {v!r}")
    if not 1 <= len(vals) <= MAX_LEVEL:
        raise SettingsError(f"{key} must give 1 to {MAX_LEVEL} values (one per level); got {len(vals)}")
    low, high = f.bounds
    out = [_number(f"{key}[{i}]", x, -high, high, integer=False) for i, x in enumerate(vals)]
    for i, x in enumerate(out, 1):
        if not x > low:
            raise SettingsError(f"{key} must be > {low:g} for every level; got {x:g} for level {i}")
    return v.strip() if isinstance(v, str) else out


def _ascending(v: list[float] | str) -> list[float]:
    """A checked gains value as ascending floats (a string is highest level first)."""
    return parse_levels(v)[::-1] if isinstance(v, str) else list(v)


_SKIP = object()   # a reader's answer "store nothing under this key"


def _read_levels(f: Field, v, data: dict, names):
    return None if v is None else _levels(f.key, v)


def _read_paper_levels(f: Field, v, data: dict, names):
    """``gains_paper_notation``: must agree with ``gains`` when both are given; else it gives the gains."""
    assert f.store is not None   # a paper_levels field names the key it gives
    g = _levels(f.key, v, f) if v is not None else None
    given = data.get(f.store) is not None
    if given and g is not None and _ascending(g) != _ascending(_levels(f.store, data[f.store])):
        raise SettingsError(f"gains {data['gains']!r} and gains_paper_notation {v!r} disagree")
    return _SKIP if given else g


def _read_cutoffs(f: Field, v, data: dict, names):
    vals = v if isinstance(v, list) else [v]
    if not 1 <= len(vals) <= MAX_LIST:
        raise SettingsError(f"cutoffs must give 1 to {MAX_LIST} whole numbers; got {len(vals)}")
    return [_number(f"cutoffs[{i}]", x, *f.bounds, integer=True) for i, x in enumerate(vals)]


def _read_metrics(f: Field, v, data: dict, names):
    if v is None:
        return None
    if not isinstance(v, list):
        raise SettingsError(f"metrics must be a list of metric names, e.g. [\"AP\", \"nDCG@10\"]; "
                            f"got {_type(v)} {v!r}")
    if not 1 <= len(v) <= MAX_LIST:
        raise SettingsError(f"metrics must list 1 to {MAX_LIST} names; got {len(v)}")
    for i, m in enumerate(v):
        _scalar(f"metrics[{i}]", "metrics", None, m, names)
    return list(v)


def _read_group(f: Field, v, data: dict, names):
    known = f.group
    if not isinstance(v, dict):
        raise SettingsError(f"{f.key} must be an object with keys {', '.join(known)}; got {_type(v)}")
    bad = [k for k in v if k not in known]
    if bad:
        raise SettingsError(f"unknown key {f.key}.{bad[0]}; known: {', '.join(known)}")
    return {k: _field_scalar(known[k], x, where=f"{f.key}.{k}") for k, x in v.items()}


def _read_scalar(f: Field, v, data: dict, names):
    return _field_scalar(f, v, names)


#: kind -> reader(field, value, whole file, names convention) -> normalised value (or _SKIP)
_READERS = {"levels": _read_levels, "paper_levels": _read_paper_levels, "cutoffs": _read_cutoffs,
            "metrics": _read_metrics, "group": _read_group, **dict.fromkeys(_SCALARS, _read_scalar)}


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


class _Huge:
    """A JSON integer too large for any setting (more than :data:`_MAX_INT_DIGITS` digits; a float that
    overflows is inf, refused by the key's own check): kept as its text while the document is decoded,
    then refused naming its key (:func:`_refuse_huge`), instead of Python's "Exceeds the limit (4300
    digits) for integer string conversion" or an OverflowError naming neither file nor key."""

    def __init__(self, text: str):
        self.text = text

    def __str__(self) -> str:
        return self.text if len(self.text) <= 24 else f"a number of {len(self.text):,} characters"


#: Longest integer a settings value may be written with: the largest bound (the seed, 2**32 - 1) has 10.
_MAX_INT_DIGITS = 20


def _int_or_huge(text: str):
    return _Huge(text) if len(text.lstrip("-")) > _MAX_INT_DIGITS else int(text)


def _refuse_huge(data, where: str = "") -> None:
    """Raise SettingsError naming the key (``swap.B``, ``gains[2]``) of the first :class:`_Huge` number."""
    items = data.items() if isinstance(data, dict) else enumerate(data) if isinstance(data, list) else ()
    for k, v in items:
        here = f"{where}.{k}" if isinstance(k, str) and where else (f"{where}[{k}]" if isinstance(k, int) else str(k))
        if isinstance(v, _Huge):
            raise SettingsError(f"{here or 'the value'} is {v}, far outside the range of any setting; give a value "
                                "within the key's bounds (docs/reliability.md)")
        _refuse_huge(v, here)


def parse_settings(text: str | bytes, source: str = "settings") -> dict:
    """Validate a whole settings document and return the normalised settings (see the module doc).

    >>> parse_settings('{"settings": {"gains": "10:5:1", "beta": 2}}')
    {'gains': '10:5:1', 'beta': 2.0}
    >>> parse_settings('{"gains": [1, 5, 10]}')
    {'gains': [1.0, 5.0, 10.0]}
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
    data = _settings_object(_decode_json(text))
    names = _field_scalar(FIELDS["names"], data["names"]) if data.get("names") is not None else None
    unknown = [k for k in data if k not in FIELDS]
    if unknown:
        raise SettingsError(f"unknown key {unknown[0]!r}; known keys: {', '.join(KNOWN_KEYS)}")
    out: dict = {}
    for key, v in data.items():
        f = FIELDS[key]
        got = _READERS[f.kind](f, v, data, names)
        if got is not _SKIP:
            out[f.store or key] = got
    return out


def _decode_json(text):
    """The JSON value of a settings text, its size and nesting checked before it is parsed."""
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
        data = json.loads(text, parse_constant=_refuse_constant, parse_int=_int_or_huge)
    except json.JSONDecodeError as e:
        raise SettingsError(f"line {e.lineno}: not valid JSON ({e.msg})") from None
    except RecursionError:  # not reached: the nesting was counted above
        raise SettingsError(f"nested deeper than {MAX_DEPTH} levels; a settings file is a flat object") from None
    if isinstance(data, _Huge):
        raise SettingsError("a settings file holds a JSON object; got a number")
    _refuse_huge(data)
    return data


def _settings_object(data) -> dict:
    """The settings object, unwrapped from ``{"settings": {...}}``."""
    if not isinstance(data, dict):
        raise SettingsError(f"a settings file holds a JSON object; got {_type(data)}")
    if set(data) == {"settings"} or ("settings" in data and isinstance(data["settings"], dict)):
        data = data["settings"]
        if not isinstance(data, dict):
            raise SettingsError(f"\"settings\" must be an object; got {_type(data)}")
    return data


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
