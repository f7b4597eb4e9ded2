"""A settings file as the dashboard can show it: widget values, and a sentence for every change.

:func:`evalcore.settings.parse_settings` checks a file against what evalcore
accepts (the CLI's ranges); the dashboard's widgets cover less: beta up to 10,
B up to 100,000, four significance levels, one cutoff for every metric, one
threshold (relaxed or rigid) and the shared gains. :func:`fit_to_app` maps a
parsed file onto those widgets and says, in plain text, every value it
clamped, snapped, dropped or ignored - never "applied" for a file that was
changed on the way - and refuses (:class:`~evalcore.settings.SettingsError`)
metric names the app cannot show as written (``P(rel=2)@5``, ``AP@100``, or
``nDCG@20`` beside ``nDCG@10``), so that a file never silently shows other
numbers than it names. Which widget a key sets and how it is fitted (clamped,
copied, snapped, reported as not used) is the key's entry in
:data:`evalcore.settings.FIELDS`; the widget keys are the dashboard's session
keys and their ranges :data:`evalcore.settings.WIDGET_BOUNDS` (one source of truth).
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .gains import resolve_gains, resolve_penalties
from .settings import DEFAULTS, FIELDS, GAIN_MAX, GAIN_MIN, WIDGET_BOUNDS, Field, SettingsError
from .specs import SETTING_PARAMS

__all__ = ["ALPHAS", "AppSettings", "fit_to_app"]

#: The significance levels the app offers (a select slider).
ALPHAS = (0.001, 0.01, 0.05, 0.1)

#: The order in which the app fits a file's keys (and so the order of its notes); how each key is
#: fitted, and which widget it sets, is the key's :class:`~evalcore.settings.Field` (``app``, ``widget``).
_ORDER = ("gains", "penalties", "beta", *(prm.name for prm in SETTING_PARAMS), "cutoffs", "rel_threshold", "metrics",
          "top_n", "top_by", "dataset",
          "log_base", "mean", "topics", "simulated", "swap", "bootstrap", "stability")


@dataclass
class AppSettings:
    """``values``: widget key -> value to set; ``notes``: one plain-text sentence per value that was
    clamped, snapped, dropped or ignored (empty when the file is shown exactly as written)."""

    values: dict = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def _fmt(v) -> str:
    return f"{v:,}" if isinstance(v, int) and not isinstance(v, bool) else f"{v:g}" if isinstance(v, float) else repr(v)


def _clamp(out: AppSettings, where: str, key: str, v):
    lo, hi = WIDGET_BOUNDS[key]
    c = min(max(v, lo), hi)
    if c != v:
        out.notes.append(f"{where} {_fmt(v)} is outside the app's range {_fmt(lo)}..{_fmt(hi)}: set to {_fmt(c)}")
    out.values[key] = c
    return c


def _how(f: Field) -> str:
    """How the app fits ``f`` (:attr:`Field.app`): every key the app fits names a way."""
    assert f.app is not None, f"{f.key} names no way to fit it"
    return f.app


def _widget(f: Field) -> str:
    """The session key ``f`` sets (:attr:`Field.widget`): every clamped or copied key names one."""
    assert f.widget is not None, f"{f.key} names no widget"
    return f.widget


def _metrics(new: dict, out: AppSettings, metric_keys) -> None:
    """The file's metrics as base keys plus one shared cutoff; names the app cannot show are refused."""
    from .names import resolve
    from .registry import METRICS

    names = new.get("names")
    cutoffs = new.get("cutoffs") or []
    shared = {"rel_threshold": new.get("rel_threshold", DEFAULTS["rel_threshold"]),
              "beta": new.get("beta", DEFAULTS["beta"]), "gains": new.get("gains"),
              **{prm.name: new.get(prm.name, prm.default) for prm in SETTING_PARAMS}}
    bases, cut, cut_from = [], (cutoffs[0] if cutoffs else None), "cutoffs"
    bad = []
    for m in new["metrics"]:
        r = resolve(m, names, warn=False)
        spec = METRICS[r.base]
        if metric_keys is not None and r.base not in metric_keys:
            bad.append(f"{m} ({r.base} is not offered by the app)")
            continue
        differs = [f"{k}={_fmt(v) if v is not None else 'level'}" for k, v in r.params.items() if shared.get(k) != v]
        if differs:
            bad.append(f"{m} (fixes {', '.join(differs)}, while the app sets that for every metric at once; "
                       f"give {r.base} and set it in the file's own keys)")
            continue
        if r.cutoff is not None and spec.cutoff != "required":
            bad.append(f"{m} (the app shows {r.base} over the whole list, not cut at {r.cutoff})")
            continue
        if r.cutoff is not None:
            if cut is None:
                cut, cut_from = r.cutoff, m
            elif r.cutoff != cut:
                bad.append(f"{m} (the app shows every metric at one cutoff, {cut} from {cut_from})")
                continue
        if r.base != m.partition("@")[0]:
            out.notes.append(f"metric {m} is shown as {r.base}" + (f"@{r.cutoff}" if r.cutoff else ""))
        bases.append(r.base)
    if bad:
        raise SettingsError("metrics the app cannot show as written: " + "; ".join(bad))
    out.values["metrics"] = list(dict.fromkeys(bases))
    if cut is not None and not cutoffs:
        _clamp(out, f"the cutoff of {cut_from}", "cutoff", cut)


def fit_to_app(new: dict, K: int, *, metric_keys=None) -> AppSettings:
    """Widget values for a settings dict that :func:`evalcore.settings.parse_settings` returned, and a
    note for every value changed on the way. ``K``: the loaded collection's levels (gains and
    penalties must give K values). ``metric_keys``: the base keys the app offers (None: every key).
    Raises SettingsError (nothing applied) for gains / penalties of another K or metrics the app
    cannot show.

    >>> a = fit_to_app({"beta": 40.0, "bootstrap": {"alpha": 0.9, "B": 10**7}}, 3)
    >>> a.values["beta"], a.values["bs_alpha"], a.values["bs_B"]
    (10.0, 0.1, 100000)
    >>> len(a.notes)
    3
    """
    new = dict(new)
    for name, resolve in (("gains", resolve_gains), ("penalties", resolve_penalties)):
        if isinstance(new.get(name), str):   # highest level first, as everywhere (evalcore.gains.parse_levels)
            try:
                new[name] = resolve(new[name], K).tolist()
            except ValueError as e:
                raise SettingsError(str(e)) from None
        if new.get(name) is not None and len(new[name]) != K:
            raise SettingsError(f"{name} gives {len(new[name])} values but the collection has {K} relevance levels")
    out = AppSettings()
    for key in _ORDER:
        if new.get(key) is not None:
            _FIT[_how(FIELDS[key])](out, FIELDS[key], new[key], new, metric_keys)
    return out


def _fit_clamp(out: AppSettings, f: Field, v, where: str | None = None) -> None:
    _clamp(out, where or f.key, _widget(f), 0 if v is None else v)


def _fit_copy(out: AppSettings, f: Field, v, where: str | None = None) -> None:
    out.values[f.widget] = v


def _fit_snap(out: AppSettings, f: Field, v, where: str | None = None) -> None:
    """A significance level: the nearest (in log scale) of the levels the app offers."""
    a = min(ALPHAS, key=lambda x: abs(math.log(x) - math.log(v)))
    if a != v:
        out.notes.append(f"{where or f.key} {_fmt(v)} is not one of the app's levels "
                         f"{', '.join(map(_fmt, ALPHAS))}: set to {_fmt(a)}")
    out.values[f.widget] = a


#: how a key inside a group is fitted (Field.app of the group's fields)
_FIT_IN_GROUP = {"clamp": _fit_clamp, "copy": _fit_copy, "snap": _fit_snap}


def _fit_group(out: AppSettings, f: Field, v: dict, new: dict, metric_keys) -> None:
    fields = f.group
    for name, x in v.items():
        _FIT_IN_GROUP[_how(fields[name])](out, fields[name], x, f"{f.key}.{name}")


def _fit_gains(out: AppSettings, f: Field, v: list, new: dict, metric_keys) -> None:
    for L, g in enumerate(v, start=1):
        c = min(max(g, GAIN_MIN), GAIN_MAX)
        if c != g:
            out.notes.append(f"gain of level {L} {_fmt(g)} is outside the app's range {_fmt(GAIN_MIN)}.."
                             f"{_fmt(GAIN_MAX)}: set to {_fmt(c)}")
        out.values[f"g{L}"] = c


def _fit_penalties(out: AppSettings, f: Field, v: list, new: dict, metric_keys) -> None:
    for L, p in enumerate(v, start=1):
        out.values[f"p{L}"] = p


def _fit_cutoffs(out: AppSettings, f: Field, v: list, new: dict, metric_keys) -> None:
    if v:
        _clamp(out, "cutoff", _widget(f), v[0])
    if len(v) > 1:
        out.notes.append(f"cutoffs {v}: the app shows one cutoff, {v[0]}; the others are not used")


def _fit_threshold(out: AppSettings, f: Field, rt: int, new: dict, metric_keys) -> None:
    out.values["threshold"] = "rigid" if rt >= 2 else "relaxed"
    if rt > 2:
        out.notes.append(f"rel_threshold {rt}: the app offers 1 (relaxed) and 2 (rigid): set to 2 (rigid)")


def _fit_metrics(out: AppSettings, f: Field, v: list, new: dict, metric_keys) -> None:
    if v:
        _metrics(new, out, metric_keys)


def _fit_dataset(out: AppSettings, f: Field, v: str, new: dict, metric_keys) -> None:
    if v in ("sim", "examples"):
        out.values[f.widget] = v
    elif v == "upload":
        out.notes.append("dataset \"upload\": a settings file cannot upload data; the loaded data is kept")


def _fit_not_shown(out: AppSettings, f: Field, v, new: dict, metric_keys) -> None:
    """A key the app has no widget for: a value other than the default is reported as not used."""
    if v != DEFAULTS[f.key]:
        out.notes.append(f"{f.key} {_fmt(v)} is not used: {f.why}")


def _fit_upload(out: AppSettings, f: Field, v, new: dict, metric_keys) -> None:
    """How runs are read (order, condensed lists, duplicates): set on the Data page's upload options, which
    apply when runs are uploaded; a value other than the default says so."""
    out.values[f.widget] = v
    if v != DEFAULTS[f.key]:
        out.notes.append(f"{f.key} {_fmt(v)}: set on the Data page's upload options; it applies to the next "
                         "upload (the data already loaded is kept as it was read)")


def _fit_topics(out: AppSettings, f: Field, v, new: dict, metric_keys) -> None:
    """The topic policy: the app's means always run over the topics with a relevant document."""
    if v not in (None, "ntcireval"):
        out.notes.append(f"topics {_fmt(v)} is not used: the app's means run over the topics with a relevant "
                         "document (NTCIREVAL's convention); the command line's --topics trec_eval averages over "
                         "every qrels topic")


#: Field.app -> how the app fits a top-level key
_FIT: dict[str, Callable[[AppSettings, Field, Any, dict, Any], None]] = {
        "gains": _fit_gains, "penalties": _fit_penalties, "cutoffs": _fit_cutoffs, "threshold": _fit_threshold,
        "metrics": _fit_metrics, "dataset": _fit_dataset, "not_shown": _fit_not_shown, "group": _fit_group,
        "topics": _fit_topics, "upload": _fit_upload,
        "clamp": lambda out, f, v, new, mk: _fit_clamp(out, f, v),
        "copy": lambda out, f, v, new, mk: _fit_copy(out, f, v)}
