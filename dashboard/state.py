"""The app's shared settings: session keys, defaults, and the URL.

Every setting has a fixed session key (the widgets use those keys directly)
and is mirrored into ``st.query_params`` at the end of each run, so copying
the address gives a colleague the same view. The sidebar's settings and the
shown page's own are keys of ``st.session_state``; another page's settings
wait in a plain store until their page is shown (:func:`keep_alive`), and code
that reads another page's setting reads it with :func:`value`. The
loaded :class:`~evalcore.Collection` stays in the session, never in the URL.

Gains and penalties are stored per level, ascending (``g1`` .. ``gK``), as
evalcore's sequences are; the URL writes them in the papers' notation,
highest level first (``gains=3:2:1``), so a URL reads like the papers, and
reads them with evalcore's own reader (:func:`evalcore.gains.resolve_gains`),
so ``gains=3:2:1`` means here what ``--gains 3:2:1`` and ``gains="3:2:1"`` mean.

This module imports streamlit and, from evalcore, only constants (the metrics
needing a cutoff among them), the gain/
penalty rules (defaults and labels) and the settings-file reader (one source of
truth: the rules live in evalcore; the computing modules, dashboard.scoring and the others named in
docs/dashboard.md, "Layout", compute with both).
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import streamlit as st

from evalcore.gains import level_label, parse_levels, resolve_gains, resolve_penalties
from evalcore.registry import SETTING_PARAMS, cutoff_required
from evalcore.settings import (
    GAIN_MAX,
    GAIN_MIN,
    GAIN_STEP,
    PRESETS,
    SIM_MAX_RUNS,
    SIM_MAX_TOPICS,
    WIDGET_BOUNDS,
    SettingsError,
    parse_settings,
)

from . import pages, safe
from .errors import guarded
from .pages import DEFAULT_METRICS

# PRESETS (the papers' gain presets, highest level first), GAIN_MIN/MAX/STEP, the widget bounds and the
# defaults come from evalcore (settings.py, gains.py): one source of truth.
__all__ = ["PRESETS", "GAIN_MIN", "GAIN_MAX", "GAIN_STEP", "WIDGET_BOUNDS", "SIM_MAX_TOPICS", "SIM_MAX_RUNS"]
#: The gain slider's stops: GAIN_MIN..GAIN_MAX on a log scale (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 7, 8
#: per decade), so every preset (0.1, 0.3, 3, 10, 20, 30 ...) is a stop and no value pins at an end.
#: The number box beside it takes any value in the range; the slider then shows that exact value too.
GAIN_STOPS = tuple(sorted({round(m * 10.0 ** e, 6) for e in (-1, 0, 1) for m in (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 7, 8)
                           if GAIN_MIN <= m * 10.0 ** e <= GAIN_MAX}))
GAIN_SLIDER_MAX = GAIN_MAX


def nearest_stop(value: float) -> float:
    """The slider stop closest to ``value`` on the log scale (the slider shows it; the box beside it
    keeps the exact value)."""
    v = min(max(float(value), GAIN_MIN), GAIN_MAX)
    return min(GAIN_STOPS, key=lambda s: abs(math.log(s) - math.log(v)))


def inverted_levels(gains, names) -> list[str]:
    """Where a higher level gets a smaller gain than the level below it, in words (empty if none)."""
    out = []
    for L in range(2, len(gains) + 1):
        if gains[L - 1] < gains[L - 2]:
            out.append(f"{names[L - 1]} (level {L}) gets {gains[L - 1]:g}, less than {names[L - 2]} "
                       f"(level {L - 1}) with {gains[L - 2]:g}")
    return out

#: A URL flag's reader (true/1/yes/on or false/0/no/off), for the settings read before :func:`init`.
url_flag = _bool = pages.url_flag

# The settings in the address, built from the declarations of the sidebar and of each page
# (dashboard/pages.py: a page's controls are declared with the page).
_CONTROLS = pages.all_controls()
#: Scalar settings mirrored in the URL: session key -> (URL name, default, parser).
_SCALARS: dict[str, tuple[str, Any, Callable[[str], Any]]] = {
    c.key: (c.name, c.default, c.parse) for c in _CONTROLS if c.kind == "scalar"}
_LISTS = {c.key: (c.name, c.default) for c in _CONTROLS if c.kind == "list"}
#: The Significance page's choices (plain keys, mirrored into its widgets by the page).
SIG_ALL = pages.SIG_ALL
#: The Significance page's scalar settings, which the page mirrors into ``_w_*`` widgets (its list, the
#: results table's metrics, is its widget's own key, checked by :func:`list_setting`).
SIGNIFICANCE_DEFAULTS = {c.key: c.default for c in pages.by_name("significance").controls if c.kind == "scalar"}
_CHOICES = {c.key: c.choices for c in _CONTROLS if c.choices}
#: evalcore's widget bounds, plus the page choices' (each page also checks its value is one it offers).
_BOUNDS = {**WIDGET_BOUNDS, **{c.key: c.bounds for c in _CONTROLS if c.bounds is not None}}
#: Longest text a URL value may carry (a metric key, a run id, a collection's title).
MAX_URL_TEXT = 200
#: Most values a page's list in the address may carry (the rest are ignored before anything is sized by them).
MAX_URL_LIST = 100
ALPHAS = (0.001, 0.01, 0.05, 0.1)


@dataclass(frozen=True)
class Settings:
    """A hashable snapshot of the shared settings for one script run."""

    dataset: str
    gains: tuple[float, ...]       # ascending L1..LK
    beta: float
    penalties: tuple[float, ...]   # ascending L1..LK
    cutoff: int
    rel_threshold: int
    metrics: tuple[str, ...]       # base keys, as chosen
    top_n: int
    top_by: str
    # each measure's own setting (evalcore.registry.SETTING_PARAMS): (parameter name, value), e.g. ("p", 0.9)
    measure_settings: tuple[tuple[str, float], ...] = ()

    @property
    def K(self) -> int:
        return len(self.gains)

    @property
    def metric_keys(self) -> tuple[str, ...]:
        """Keys with the cutoff applied to the metrics that need one (``nDCG@10``)."""
        return tuple(expand(m, self.cutoff) for m in self.metrics)

    def params(self) -> dict:
        """Keyword arguments of ``evalcore.score_matrices`` / ``evaluate``."""
        return {"gains": list(self.gains), "beta": self.beta, "penalties": list(self.penalties),
                "rel_threshold": self.rel_threshold, **dict(self.measure_settings)}

    def as_json(self) -> dict:
        """The settings file the CLI (``--settings``) and the Data page both read."""
        return {
            "gains": list(self.gains), "gains_paper_notation": paper(self.gains),
            "beta": self.beta, "penalties": list(self.penalties), "cutoffs": [self.cutoff],
            "rel_threshold": self.rel_threshold, **dict(self.measure_settings), "metrics": list(self.metric_keys),
            "top_n": self.top_n, "top_by": self.top_by,
        }


#: Metrics whose key needs "@l", from evalcore's registry (its cutoff="required").
CUTOFF_REQUIRED = cutoff_required()


#: Each page's own settings (its declared controls) by the path it is served at; the site's root (served as ""
#: or under :data:`dashboard.pages.ROOT_NAME`) runs the Overview's script.
_OWN_KEYS: dict[str, frozenset[str]] = {p.url_path: frozenset(c.key for c in p.controls) for p in pages.PAGES}
_OWN_KEYS[""] = _OWN_KEYS[pages.ROOT_NAME] = _OWN_KEYS[pages.HOME.url_path]
#: Every page's own settings: a session key only while its page is shown.
_PAGE_SETTINGS: frozenset[str] = frozenset().union(*_OWN_KEYS.values())


def value(key: str):
    """A setting's value whether its page is shown or not: the session key, else the store another page's
    settings wait in (:func:`keep_alive`), else its default. Read another page's setting with this, never
    with ``st.session_state[key]`` (tests/test_app_state_keys.py checks the pages' code for it)."""
    ss = st.session_state
    if key in ss:
        return ss[key]
    store = ss.get("_kept") or {}
    if key in store:
        return store[key]
    return _SCALARS[key][1] if key in _SCALARS else _LISTS[key][1]


def _put(key: str, v) -> None:
    """Set a setting where it is kept now: its session key, or the store while its page is not shown."""
    ss = st.session_state
    store = ss.get("_kept") or {}
    if key in store and key not in ss:
        store[key] = v
    else:
        ss[key] = v


def page_keys() -> list[str]:
    """The settings in the address that belong to one page (its choices), not to the sidebar."""
    return [c.key for p in pages.PAGES for c in p.controls]


def expand(base: str, cutoff: int) -> str:
    return f"{base}@{int(cutoff)}" if base in CUTOFF_REQUIRED else base


def paper(values) -> str:
    """Ascending per-level values -> the papers' notation, highest level first (evalcore's label)."""
    return level_label(values)


def from_paper(text: str) -> list[float]:
    """The papers' notation (highest level first) -> ascending per-level values; evalcore's reader
    (:func:`evalcore.gains.parse_levels`), the one every string form of gains goes through."""
    return parse_levels(text)[::-1]


def default(key: str):
    """The default of a session setting (as in the address when it is left out)."""
    return _SCALARS[key][1]


def level_names(K: int, names=None) -> list[str]:
    """Names of levels 1..K: S/A/B for three levels (or the collection's names)."""
    if names and len(names) == K:
        return list(names)
    if K == 3:
        return ["B", "A", "S"]
    return [f"L{L}" for L in range(1, K + 1)]


def default_gains(K: int) -> list[float]:
    """Sakai 2007's 3:2:1 mapped onto K levels (evalcore.gains.map_levels): gain(L) = L."""
    return resolve_gains(None, K).tolist()


def default_penalties(K: int) -> list[float]:
    """Sakai 2007's S:A:B = 2:3:4 mapped onto K levels (evalcore.gains.map_levels): penalty(L) = K - L + 2."""
    return resolve_penalties(None, K).tolist()


def _clean(key: str, value):
    """Clamp a URL / settings-file value to its documented range. Not-a-number
    and infinite values are refused (ValueError), never clamped: ``min(max(nan,
    lo), hi)`` is nan, which is how ``?beta=nan`` used to pass."""
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(value)
    if isinstance(value, str):
        value = value[:MAX_URL_TEXT]
    lo_hi = _BOUNDS.get(key)
    if lo_hi is not None:
        value = min(max(value, lo_hi[0]), lo_hi[1])
    if key in _CHOICES and value not in _CHOICES[key]:
        raise ValueError(value)
    return value


def init(metric_choices) -> None:
    """Fill the session with defaults, overridden once per session by the URL.

    Called at the top of every run; cheap after the first. Gains and
    penalties follow the collection's K: call :func:`set_levels` once the
    collection is known (a collection with another K resets them).
    """
    ss = st.session_state
    first = not ss.get("_init_done", False)
    q = dict(st.query_params) if first else {}
    kept = ss.get("_kept") or {}           # another page's settings wait there (keep_alive)
    for key, (name, default, parse) in _SCALARS.items():
        if key in kept or key in ss:
            continue
        val = default
        if name in q:
            try:
                val = _clean(key, parse(q[name]))
            except (ValueError, TypeError, OverflowError):
                ss.setdefault("_url_warnings", []).append(f"ignored {name}={q[name]!r} in the address")
        ss[key] = val
    if "metrics" not in ss:
        val = list(DEFAULT_METRICS)
        if "m" in q:
            asked = [m for m in q["m"].split(",") if m in metric_choices]
            val = asked or val
        ss["metrics"] = val
    for key, (name, _) in _LISTS.items():       # a page's own lists: the page checks them (list_setting)
        if key != "metrics" and key not in kept and key not in ss and name in q:
            ss[key] = [v for v in q[name].split(",", MAX_URL_LIST)[:MAX_URL_LIST] if v]
    if first:
        ss["_url_gains"] = q.get("gains")
        ss["_url_pen"] = q.get("pen")
        ss["_init_done"] = True
    _offered(metric_choices)


def _offered(metric_choices) -> None:
    """The metric choices and the bootstrap's alpha kept to what the widgets offer."""
    ss = st.session_state
    ss["metrics"] = [m for m in ss["metrics"] if m in metric_choices] or list(DEFAULT_METRICS)
    if ss["top_by"] not in metric_choices:
        ss["top_by"] = "AP"
    alpha = value("bs_alpha")
    if alpha not in ALPHAS:
        _put("bs_alpha", min(ALPHAS, key=lambda a: abs(a - float(alpha))))


def set_levels(K: int) -> None:
    """``g1..gK`` / ``p1..pK`` for the current K, URL values first: a link to an upload not held (``_link_missing``)
    keeps them until the upload arrives; a gain beyond the sliders' range is said with the value used."""
    ss = st.session_state
    say = ss.setdefault("_url_warnings", []).append
    arrived = bool(ss.get("_link_missing")) and ss.get("dataset") == "upload" and ss.get("uploaded") is not None
    waiting = bool(ss.pop("_link_missing", None) if arrived else ss.get("_link_missing"))
    if ss.get("_K") == K and not arrived:
        return
    take = ss.get if waiting and not arrived else ss.pop      # a link's values wait for its upload
    gains, pen = default_gains(K), default_penalties(K)
    for raw, target, name, resolve in ((take("_url_gains", None), gains, "gains", resolve_gains),
                                       (take("_url_pen", None), pen, "pen", resolve_penalties)):
        try:   # as evalcore reads a string everywhere: highest level first, K values or 3 mapped onto K
            target[:] = [min(v, 100.0) for v in resolve(str(raw), K).tolist()] if raw else target
        except ValueError as e:
            if not (waiting and not arrived):         # not for the stand-in data: the values wait for the upload
                say(f"ignored {name}={raw!r} in the address: {e}")
            continue
        if raw and arrived:
            say(f"{name}={raw} from the link applied to the uploaded data: {level_label(target)} (highest level first)")
    for old in [k for k in ss if (k[:1] in "gp" and k[1:].isdigit())]:
        del ss[old]
    for L in range(1, K + 1):
        ss[f"g{L}"] = min(max(round(gains[L - 1], 3), GAIN_MIN), GAIN_MAX)
        ss[f"p{L}"] = float(pen[L - 1])
    used = [ss[f"g{L}"] for L in range(1, K + 1)]
    moved = [f"{g:g} -> {u:g}" for g, u in zip(reversed(gains), reversed(used), strict=True) if round(g, 3) != u]
    if moved:
        say(f"gains outside the sliders' range {GAIN_MIN:g} to {GAIN_MAX:g} were set to its nearest end "
            f"({', '.join(moved)}): the gains used are {level_label(used)} (highest level first)")
    ss["_K"] = K


def this_run() -> dict:
    """What this run draws, in one session key (each key of the session costs every keyed widget of every
    run, :func:`keep_alive`): ``figs`` ((label, figure) pairs) and ``items`` (all it draws, in order) for the
    view's HTML export, ``live_pending`` (quick passes refined at the end of the run, live.finish_live),
    and ``data``, ``settings`` and ``settings_words`` (the export's summary). dashboard.shell.setup starts it
    afresh at every run."""
    return st.session_state.setdefault("_view", {})


#: The widgets that show one level's gain, and the letter of each one's version in :func:`_gain_versions`: the
#: sidebar's slider and exact-value box, and presentation mode's box in the row at the top of the page
#: (dashboard.widgets.gains_row).
GAIN_WIDGETS = {"slider": "s", "box": "n", "row": "r"}


def gain_keys(ss, L: int) -> tuple[str, str]:
    """The session keys of level ``L``'s gain slider and gain box as drawn in this run, in the session
    state ``ss`` (the gain itself is ``g{L}``); :func:`sync_gain_widgets` chooses them. Tests and
    benchmarks that drive the sidebar find the widgets with it."""
    return _gain_key(ss, L, "slider"), _gain_key(ss, L, "box")


def gain_row_key(ss, L: int) -> str:
    """The session key of level ``L``'s box in presentation mode's row of gains, as drawn in this run."""
    return _gain_key(ss, L, "row")


_KEY_PREFIX = {"slider": "_gs", "box": "_gn", "row": "_pg"}


def _gain_key(ss, L: int, which: str) -> str:
    gw = ss["_gw"] if "_gw" in ss else {}
    return f"{_KEY_PREFIX[which]}{L}_{gw.get(f'{GAIN_WIDGETS[which]}v{L}', 0)}"


def _gain_versions() -> dict:
    """Per level, each gain widget's version (``sv1``/``nv1``/``rv1``: slider, box, row), the value each one
    was drawn with or last set (``s1``/``n1``/``r1``) and the gain they last showed (``sync1``), in one
    session key: each key of the session costs every keyed widget of every run (:func:`keep_alive`)."""
    return st.session_state.setdefault("_gw", {})


def gain_widgets(L: int) -> tuple[str, str]:
    """:func:`gain_keys` of this session."""
    return gain_keys(st.session_state, L)


def _drawn(which: str, g: float) -> float:
    """The value a fresh gain widget shows for the gain ``g``: the slider its nearest stop, a box the gain."""
    return nearest_stop(g) if which == "slider" else g


def _redraw(gw: dict, L: int, g: float, keep: str | None = None) -> None:
    """Every gain widget of level ``L`` but ``keep`` gets a new key (a new widget, showing ``g``)."""
    for which, v in GAIN_WIDGETS.items():
        if which != keep:
            gw[f"{v}v{L}"] = gw.get(f"{v}v{L}", 0) + 1
            gw[f"{v}{L}"] = _drawn(which, g)
    gw[f"sync{L}"] = g


def sync_gain_widgets(L: int) -> tuple[str, str]:
    """The keys under which level ``L``'s slider and box are drawn in this run (the row's:
    :func:`gain_row_key`).

    No value is ever written into a live gain widget. Streamlit sends a value written into a widget's
    key back to the browser, and a browser that has not received it yet sends the widget's old value
    with the next key press, which then counts as a change: the slider jumped back and presses were
    lost. Instead, where one of the widgets (or a preset, reset, a settings file, the address, a
    page change) sets the gain, the *other* widgets get a new key and are drawn afresh with the gain as
    their initial value: a new widget has no old value in any browser. The widget under the user's hand
    keeps its key, so a slider being moved or a box being pressed is never redrawn. The callbacks
    (:func:`gain_from_widget`) ignore what is not a change of the user's."""
    g = float(st.session_state[f"g{L}"])
    gw = _gain_versions()
    if gw.get(f"sync{L}") != g:          # set by something other than these widgets
        _redraw(gw, L, g)
    return gain_widgets(L)


@guarded
def gain_from_widget(L: int, which: str, key: str | None = None) -> None:
    """Callback of level ``L``'s gain widget ``which`` ("slider", "box" or "row"; ``key``: the widget's own
    key): its value becomes gain ``g{L}``, and the other widgets are drawn afresh showing it (the slider shows
    the nearest stop of a value typed in a box).

    Fast hands: a burst of presses makes runs overlap, and a browser reports the widgets it still shows -
    earlier versions of the ones redrawn meanwhile - with each press, so Streamlit may call the callback of
    a widget no longer drawn, or of a fresh one that nobody touched (a slider drawn at 3 for a gain of 3.2
    "changed" to 3). Neither is the user's: a callback whose ``key`` is not the widget drawn now, or whose
    value is the one the widget was drawn with or last set, changes nothing. Before, such a callback set
    the gain to its old value or to a slider stop: a burst was lost whole, or overshot."""
    ss = st.session_state
    current = _gain_key(ss, L, which)
    if key is not None and key != current:
        return
    v = ss.get(current)
    if v is None or not math.isfinite(float(v)):
        return
    gw = _gain_versions()
    mark = GAIN_WIDGETS[which]
    if gw.get(f"{mark}{L}") == float(v) and f"sync{L}" in gw:
        return
    g = min(max(round(float(v), 4), GAIN_MIN), GAIN_MAX)
    ss[f"g{L}"] = g
    gw[f"{mark}{L}"] = float(v)
    _redraw(gw, L, g, keep=which)


@guarded
def apply_gains(values_ascending) -> None:
    """Button callback: set every gain slider (e.g. a preset)."""
    for L, v in enumerate(values_ascending, start=1):
        st.session_state[f"g{L}"] = min(max(round(float(v), 6), GAIN_MIN), GAIN_MAX)


def current() -> Settings:
    ss = st.session_state
    K = ss["_K"]
    thr = 2 if ss["threshold"] == "rigid" and K >= 2 else 1
    return Settings(
        dataset=ss["dataset"],
        gains=tuple(float(ss[f"g{L}"]) for L in range(1, K + 1)),
        beta=float(ss["beta"]),
        penalties=tuple(float(ss[f"p{L}"]) for L in range(1, K + 1)),
        cutoff=int(ss["cutoff"]),
        rel_threshold=thr,
        metrics=tuple(ss["metrics"]) or DEFAULT_METRICS,
        top_n=int(ss["top_n"]),
        top_by=str(ss["top_by"]),
        measure_settings=tuple((prm.name, float(ss[prm.setting.widget])) for prm in SETTING_PARAMS if prm.setting),
    )


def keep_alive() -> None:
    """Keep every setting across page changes without writing to a live widget.

    A widget's identity includes its page, so on another page a widget with the same key is a new
    widget that takes its value from the key in the session - which Streamlit has dropped when the
    last run did not draw the widget. The documented idiom, ``ss[key] = ss[key]`` at the top of a
    run, keeps it; but a value written into a widget's key before the widget is drawn is also sent
    back to the browser as the widget's new value. Done on every run, a key press or drag that
    reached the server while a run was under way was overwritten by the run's older value: the
    slider jumped back and the press was lost.

    So the values are written only when they must be: every setting is copied into a plain store;
    on the first run of a page (the page changed) the settings are written into their keys, and on
    any run a setting that Streamlit dropped (a widget hidden for a run, such as RBP's slider) is
    restored from the store. Call first in a run, before :func:`init` fills new sessions' defaults.

    Another page's own settings are not keys of the session while that page is not shown: they wait
    in the store (:func:`value` reads them there) and become keys again on their page's first run.
    Each keyed widget Streamlit draws reads the whole session state, key by key, twice (its value and
    the rules on writing it), so the ~60 settings of the other pages cost every widget of every run
    (docs/benchmarks.md section 16.8). A run whose page is not known parks nothing.
    """
    ss = st.session_state
    store = ss.setdefault("_kept", {})
    K = ss.get("_K", 0)
    levels = [f"{x}{L}" for x in "gp" for L in range(1, K + 1)]
    page = ss.get("_page_now")
    new_page = page != ss.get("_page_kept")
    ss["_page_kept"] = page
    own = _OWN_KEYS.get(page) if isinstance(page, str) else None
    now = ss.to_dict()           # one pass over the session (each ``key in ss`` / ``ss[key]`` is a locked call)
    for key in list(_SCALARS) + list(_LISTS) + levels:
        parked = own is not None and key in _PAGE_SETTINGS and key not in own
        if key in now:
            store[key] = now[key]
            if parked:
                del ss[key]
            elif new_page:
                ss[key] = now[key]
        elif key in store and not parked:
            ss[key] = store[key]
    if new_page:                            # the gain widgets are new widgets too: show the gains in them
        gw = _gain_versions()
        for L in range(1, K + 1):
            gw.pop(f"sync{L}", None)


def list_setting(key: str, options: list, default: list) -> None:
    """A page's list setting (a multiselect whose options only the page knows, declared with
    ``kind="list"``): ``default`` when the session has none; values from the address that are not
    among ``options`` dropped with a notice (written only then, never into a live widget's value on
    every run); and ``default`` remembered so that the address carries the list only when it differs."""
    ss = st.session_state
    ss.setdefault("_list_defaults", {})[key] = list(default)
    value = ss.get(key)
    if not isinstance(value, list):
        ss[key] = list(default)
        return
    kept = [v for v in value if v in options]
    if kept != value:
        name = _LISTS[key][0]
        bad = [v for v in value if v not in options]
        dropped = ", ".join(repr(v[:MAX_URL_TEXT]) for v in bad[:5])
        dropped += f" and {len(bad) - 5} more" if len(bad) > 5 else ""
        st.toast(safe.md(f"ignored {dropped} in {name}= of the address: not offered here"))   # text, not Markdown
        ss[key] = kept or list(default)


def sync_url() -> dict:
    """Mirror the settings into the address bar (only values that differ from defaults). Returns the session's
    values as read for it, the other pages' settings included (one pass over the session state; a caller reads
    its settings from it, not key by key), or {} before the first setup."""
    ss = st.session_state
    if "_K" not in ss:
        return {}
    now = ss.to_dict()           # one pass over the session, then plain dict look-ups
    now = {**(now.get("_kept") or {}), **now}    # with the other pages' settings (keep_alive)
    want: dict[str, str] = {}
    for key, (name, default, _) in _SCALARS.items():
        if key in ("upload_fp", "upload_name") and now.get("dataset") != "upload":
            continue
        if key in now and now[key] != default:
            want[name] = str(now[key])
    if list(now.get("metrics", DEFAULT_METRICS)) != list(DEFAULT_METRICS):
        want["m"] = ",".join(now["metrics"])
    page_defaults = now.get("_list_defaults", {})
    for key, (name, default) in _LISTS.items():
        value = now.get(key)
        if key != "metrics" and isinstance(value, list) and value != page_defaults.get(key, default):
            want[name] = ",".join(map(str, value))
    K = now["_K"]
    g = [now[f"g{L}"] for L in range(1, K + 1)]
    if g != default_gains(K):
        want["gains"] = paper(g)
    p = [now[f"p{L}"] for L in range(1, K + 1)]
    if p != default_penalties(K):
        want["pen"] = paper(p)
    if dict(st.query_params) != want:
        st.query_params.from_dict(want)
    return now


@guarded
def reset() -> None:
    """Button callback: every setting back to its default; the data stays loaded."""
    ss = st.session_state
    for key in list(_SCALARS) + list(_LISTS) + ["_K", "_url_gains", "_url_pen", "_kept"]:
        ss.pop(key, None)
    for key in [k for k in ss if isinstance(k, str) and k.startswith("_w_")]:   # the Significance page's widgets
        del ss[key]
    keep = ss.get("uploaded") is not None
    st.query_params.clear()
    ss["_init_done"] = True
    if keep:
        ss["dataset"] = "upload"


def apply_settings_file(data, K: int, source: str = "settings file") -> list[str]:
    """Load a settings file (as written by the Report page or the CLI's --save-settings) into the session.

    ``data``: the file's bytes or text (or an already-parsed dict). Atomic:
    :func:`evalcore.settings.parse_settings` checks the whole file, and the
    gains / penalties are checked against the collection's K, before anything
    is applied. Returns the problem in words (and changes nothing), or [].
    Values outside a widget's range are clamped to it, and every value changed,
    clamped or ignored on the way is said in ``session_state["_settings_notes"]``
    (:func:`evalcore.app_settings.fit_to_app`, which also refuses metric names
    the app cannot show as written).
    """
    import json

    from evalcore.app_settings import fit_to_app

    st.session_state["_settings_notes"] = []
    try:
        new = parse_settings(data if isinstance(data, (str, bytes)) else json.dumps(data), source)
    except SettingsError as e:
        return [str(e)]
    try:
        fit = fit_to_app(new, K)
    except SettingsError as e:
        return [f"{source}: {e}"]
    up: dict[str, Any] = {}
    for key, value in fit.values.items():
        up[key] = _clean(key, value) if key in _BOUNDS or key in _CHOICES else value
    st.session_state["_settings_notes"] = [f"{source}: {n}" for n in fit.notes]
    st.session_state.update(up)
    return []
