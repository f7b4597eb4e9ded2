"""Every control of every page is in the address, and comes back from it.

Each page declares its controls with the page (dashboard/pages.py: ``PageSpec.controls``,
the sidebar's once in ``SIDEBAR``) and the widgets it keeps out of the address on purpose,
with the reason (``unlinked``). These tests run every page in AppTest, list the widgets it
draws, and check that each keyed widget is declared one way or the other - so a new control
that is not in the address fails here - then set each declared one to a value other than
the one shown, copy the address, open it in a fresh session and check that the widget shows
that value.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("streamlit")
from streamlit.testing.v1 import AppTest  # noqa: E402
from streamlit.testing.v1.element_tree import Widget  # noqa: E402

from dashboard import pages  # noqa: E402
from dashboard.pages import PAGES, SIDEBAR, SIDEBAR_UNLINKED  # noqa: E402

APP = str(Path(__file__).resolve().parents[1] / "app.py")
#: A small simulated collection and small Monte Carlo sizes: the pages' widgets, quickly.
SMALL = {"nt": "12", "nr": "6", "swb": "100", "bsb": "100", "stb": "50", "gvb": "100", "gvrep": "3"}
#: Widgets that hold no value: pressing one is an action, never a setting a link could carry.
ACTIONS = ("Button", "DownloadButton")


def _app(query: dict, page: pages.PageSpec) -> AppTest:
    """A session opening ``page`` at an address with ``query`` (its first run is that page's, as a browser
    opening ``/<url_path>?<query>``)."""
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params.update(query)
    at.session_state["_nwrr_open"] = True     # the sidebar's penalties panel open (its inputs are drawn only then)
    at.switch_page(page.script).run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def _query(at: AppTest) -> dict[str, str]:
    """The address's query as the browser would copy it (one value per name)."""
    return {k: (v[0] if isinstance(v, list) else v) for k, v in at.query_params.items()}


def _widgets(node) -> list[Widget]:
    """Every widget drawn (main area and sidebar), in order."""
    out = [node] if isinstance(node, Widget) else []
    for child in (getattr(node, "children", None) or {}).values():
        out += _widgets(child)
    return out


def _stable(key: str) -> str:
    """A widget's key without the version a redrawn widget gets (the gain slider ``_gs3_2`` is ``_gs3``)."""
    return re.sub(r"_\d+$", "", key)


def _find(at: AppTest, stable: str) -> Widget | None:
    found = [w for w in _widgets(at._tree) if w.key is not None and _stable(w.key) == stable]
    return found[0] if found else None


def _declared(page: pages.PageSpec):
    controls = [(c.widget_pattern, c) for c in SIDEBAR + page.controls]
    unlinked = [(u.widgets, u) for u in SIDEBAR_UNLINKED + page.unlinked]
    return controls, unlinked


def _control_of(key: str, controls) -> pages.Control | None:
    return next((c for pattern, c in controls if re.fullmatch(pattern, key)), None)


def _shows(w: Widget, value) -> str | None:
    """The label widget ``w`` shows for ``value``, or None where its label function refuses it."""
    try:
        return str(w.format_func(value))
    except Exception:        # a label function that does not take this candidate
        return None


def _candidates(w: Widget, options: list[str]) -> list:
    """Values a choice widget may take, from its options as shown: the keys of a ``dict.get`` label
    function, the numbers in an option (``"90%"`` is 0.9, ``"A (level 2)"`` is 2), and last the option
    itself (a select slider takes only the raw value)."""
    out: list = []
    owner = getattr(w.format_func, "__self__", None)
    if isinstance(owner, dict):
        out += list(owner)
    for o in options:
        for m in re.finditer(r"-?\d+(\.\d+)?", o):
            num = float(m.group()) if m.group(1) else int(m.group())
            out += [num / 100] if o.endswith("%") else [num, float(num)]
    # small whole numbers: levels shown by name (S, A, B, -); then the option sets the dashboard declares as
    # module constants (a label function over raw values that its labels do not spell: "two-way" -> "V_E, ...")
    return out + list(range(101)) + list(options) + _declared_options()


def _declared_options() -> list[str]:
    """Every string of every tuple or list of strings at the top of a dashboard or evalcore.meta module."""
    import importlib
    import pkgutil

    import dashboard
    import evalcore.meta
    out: list[str] = []
    for pkg in (dashboard, evalcore.meta):
        for info in pkgutil.iter_modules(pkg.__path__):
            if info.name == "serve":          # the server's entry point: it builds the ASGI app on import
                continue
            mod = importlib.import_module(f"{pkg.__name__}.{info.name}")
            for v in vars(mod).values():
                if isinstance(v, (tuple, list)) and v and all(isinstance(x, str) for x in v):
                    out += [x for x in v if x not in out]
    return out


def _raw(w: Widget, label: str):
    """The value of choice widget ``w`` that it shows as ``label``."""
    return next(v for v in _candidates(w, list(w.options)) if _shows(w, v) == label)


def _other_choice(w: Widget, shown) -> object:
    """A value of a choice widget other than ``shown``: the first option it shows that differs."""
    here = _shows(w, shown) if shown is not None else None
    for target in w.options:
        if target != here:
            return _raw(w, target)
    raise AssertionError(f"{w.key}: no option other than {shown!r} among {w.options}")


def _set_other(w: Widget) -> None:
    """Set widget ``w`` to a value other than the one it shows."""
    kind, v = type(w).__name__, w.value
    if kind in ("Toggle", "Checkbox"):
        w.set_value(not v)
    elif kind == "TextInput":
        w.input("zz round trip")
    elif kind in ("NumberInput", "Slider"):
        step = w.step or 1
        up = v + step
        w.set_value(up if w.max is None or up <= w.max else v - step)
    elif kind == "Multiselect":
        shown = [_shows(w, x) for x in v]
        extra = [o for o in w.options if o not in shown]
        w.set_value(list(v) + [_raw(w, extra[0])] if extra else list(v)[:-1])
    elif kind in ("Selectbox", "Radio", "SelectSlider", "ButtonGroup"):
        w.set_value(_other_choice(w, v))
    else:
        raise AssertionError(f"{w.key}: a {kind} widget; teach this test how to change one")


@pytest.mark.parametrize("page", PAGES, ids=[p.url_path for p in PAGES])
def test_every_keyed_widget_of_a_page_is_declared_in_the_address_or_kept_out_with_a_reason(page):
    at = _app(SMALL, page)
    controls, unlinked = _declared(page)
    problems = []
    for w in _widgets(at._tree):
        kind = type(w).__name__
        if w.key is None:
            if kind not in ACTIONS:
                problems.append(f"a {kind} {w.label!r} without a key: it cannot be in the address")
            continue
        hits = [c.key for p, c in controls if re.fullmatch(p, w.key)]
        outs = [u.why for p, u in unlinked if re.fullmatch(p, w.key)]
        if len(hits) + len(outs) != 1:
            problems.append(f"{kind} {w.key!r}: in the address as {hits}, kept out as {outs}; declare it once "
                            f"in dashboard/pages.py, in the page's controls (or unlinked, with the reason)")
    assert not problems, f"page {page.url_path}:\n" + "\n".join(problems)


def test_the_declarations_are_consistent():
    """One session key and one address name per setting; every pattern is a valid regular expression;
    every reason is said in words."""
    everything = pages.all_controls()
    keys = [c.key for c in everything]
    names = [c.name for c in everything]
    assert len(set(keys)) == len(keys), sorted(k for k in keys if keys.count(k) > 1)
    assert len(set(names)) == len(names), sorted(n for n in names if names.count(n) > 1)
    for c in everything:
        re.compile(c.widget_pattern)
        assert c.kind in ("scalar", "list", "levels"), c
        if c.kind == "scalar":
            assert c.parse(str(c.default)) == c.default, f"{c.key}: its default does not read back from text"
    for p in PAGES:
        for u in SIDEBAR_UNLINKED + p.unlinked:
            re.compile(u.widgets)
            assert len(u.why.split()) >= 4, u


def _changeable(w: Widget) -> bool:
    """Whether ``w`` can show another value (a choice of one option cannot)."""
    return len(getattr(w, "options", None) or [None, None]) > 1


#: Every name released in the address, with the setting it sets: links people have shared carry these, so a
#: name is never renamed or given another meaning (a test below holds the declarations to it; add new names).
RELEASED = {
    "beta": "beta", "bsa": "bs_alpha", "bsb": "bs_B", "bsseed": "bs_seed", "bssig": "bs_only_sig", "bst": "bs_tab",
    "by": "top_by", "chart": "chart_format", "cutoff": "cutoff", "data": "dataset", "gv": "gv_metric", "gvb": "gv_B",
    "gvr": "gv_ratio", "gvrep": "gv_rep", "kc": "kc_metric", "kl": "kc_level", "nr": "sim_runs", "nt": "sim_topics",
    "ov": "ov_metric", "ovref": "ov_ref", "p": "rbp_p", "pl": "pl_list", "plc": "pl_counts", "plf": "pl_formula",
    "plpin": "pl_pin", "present": "present", "rk": "rk_metric", "rx": "rk_run_x", "ry": "rk_run_y",
    "seed": "sim_seed", "sgB": "sg_B", "sgalpha": "sg_alpha", "sgbase": "sg_base", "sgci": "sg_ci",
    "sgconf": "sg_conf", "sgcorr": "sg_corr", "sgfmetric": "sg_fmetric", "sgfrun": "sg_frun",
    "sgonlysig": "sg_only_sig", "sgreps": "sg_reps", "sgruns": "sg_runs", "sgseed": "sg_seed", "sgstd": "sg_std",
    "sgtest": "sg_test", "sgtmetric": "sg_tmetric", "stb": "st_B", "step": "ls_step", "stk": "st_subset",
    "stseed": "st_seed", "swb": "sw_B", "swc": "sw_conf", "swk": "sw_subset", "sws": "sw_sampling",
    "swseed": "sw_seed", "thr": "threshold", "top": "top_n", "tsalpha": "ts_alpha", "tsbeta": "ts_beta",
    "tsdesign": "ts_design", "tsest": "ts_est", "tsmetric": "ts_metric", "tsmind": "ts_mind",
    "tssystems": "ts_systems", "up": "upload_fp", "upname": "upload_name", "m": "metrics", "gains": "gains",
    "pen": "penalties", "rptop": "rp_top", "rpby": "rp_top_by", "rpb": "rp_B", "rptb": "rp_tukey_B",
    "rpreps": "rp_repeats", "rpseed": "rp_seed", "rpts": "rp_topic_resamples", "rptopb": "rp_topic_B",
    "rptseed": "rp_topic_seed", "f_beta": "f_beta"
}


def test_every_released_address_name_still_sets_the_same_setting():
    declared = {c.name: c.key for c in pages.all_controls()}
    assert {n: declared.get(n) for n in RELEASED} == RELEASED


def _roundtrip(page: pages.PageSpec, keys: list[str]) -> tuple[list[str], list[str]]:
    """Set each widget ``keys`` (stable keys) on ``page`` to another value in one session, then open the
    copied address in a fresh session. Returns the problems, in words, and the keys left unchanged because
    an earlier change hid their widget or left it one option (to try on their own)."""
    at = _app(SMALL, page)
    problems, changed, left = [], {}, []
    for key in keys:
        w = _find(at, key)
        if w is None or not _changeable(w):
            left.append(key)
            continue
        before = w.value
        _set_other(w)
        at.run()
        assert not at.exception, (key, [e.message for e in at.exception])
        after = _find(at, key)
        if after is None or after.value == before:
            problems.append(f"{key}: set from {before!r}, the page shows {after and after.value!r}")
            continue
        changed[key] = after.value
    q = _query(at)
    fresh = _app(q, page)
    for key, value in changed.items():
        w = _find(fresh, key)
        if w is None or w.value != value:
            problems.append(f"{key}: {value!r} in the first session, {w.value if w else 'no widget'!r} "
                            f"from the copied address {q}")
    return problems, left


def _check(page: pages.PageSpec, keys: list[str]) -> None:
    problems, left = _roundtrip(page, keys)
    for key in left:                    # on its own, from the page's first view
        more, still = _roundtrip(page, [key])
        problems += more + [f"{k}: not drawn, or one option only, in the page's first view" for k in still]
    assert not problems, f"page {page.url_path}:\n" + "\n".join(problems)


def _page_keys(page: pages.PageSpec, sidebar: bool) -> list[str]:
    at = _app(SMALL, page)
    controls, _ = _declared(page)
    keys = []
    for w in _widgets(at._tree):
        c = None if w.key is None else _control_of(w.key, controls)
        if c is not None and (c in SIDEBAR) == sidebar and _stable(w.key) not in keys:
            keys.append(_stable(w.key))
    return keys


@pytest.mark.slow      # seconds each: the default loop stays under 10 minutes (CI runs -m slow)
@pytest.mark.parametrize("page", PAGES, ids=[p.url_path for p in PAGES])
def test_every_control_of_a_page_comes_back_from_a_copied_address(page):
    keys = _page_keys(page, sidebar=False)
    if not keys:
        pytest.skip(f"page {page.url_path} draws no control of its own in the address")
    _check(page, keys)


# the sidebar's controls, one at a time (each changes the data or the settings every page reads), on the Data
# page: the sidebar is the same on every page, and the Data page draws no analysis that a setting could break
SIDEBAR_PAGE = pages.by_name("data")
SIDEBAR_KEYS = ["dataset", "_gs3", "_gn2", "beta", "p2", "cutoff", "threshold", "metrics", "top_n", "top_by",
                "present", "chart_format"]


@pytest.mark.parametrize("key", SIDEBAR_KEYS)
def test_every_sidebar_control_comes_back_from_a_copied_address(key):
    _check(SIDEBAR_PAGE, [key])


def test_the_sidebar_keys_above_are_every_sidebar_widget_drawn():
    assert sorted(_page_keys(SIDEBAR_PAGE, sidebar=True)) == sorted(SIDEBAR_KEYS + ["_gs1", "_gs2", "_gn1", "_gn3",
                                                                                "p1", "p3"])
