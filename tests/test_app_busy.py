"""The Overview under a class: its resampling charts are computed when asked while more sessions than
``EVALCORE_LIVE_RESAMPLING_SESSIONS`` use the server (dashboard.activity), under AppTest.

Values on screen are checked against evalcore.meta.bootstrap_sensitivity called directly on
evalcore's score matrices for the same settings; what a move computes is counted by spying on the
resampling functions the dashboard calls.
"""
from __future__ import annotations

import html
import json
from pathlib import Path

import pytest

pytest.importorskip("streamlit")
from streamlit.testing.v1 import AppTest  # noqa: E402
from test_app_live import _chart  # noqa: E402

import evalcore  # noqa: E402
from dashboard import activity  # noqa: E402
from dashboard.state import gain_keys  # noqa: E402
from evalcore import meta, registry  # noqa: E402

APP = str(Path(__file__).resolve().parents[1] / "app.py")
SMALL = {"nt": "20", "nr": "8", "m": "AP,Q-measure,P-measure"}


# -- the setting and the count of active sessions --------------------------------------------------

def test_the_setting_defaults_to_four_and_refuses_what_is_not_a_count():
    assert activity.live_sessions({}) == activity.DEFAULT_LIVE == 4
    assert activity.live_sessions({activity.ENV: " 0 "}) == 0
    assert activity.live_sessions({activity.ENV: "100000"}) == 100_000
    for raw in ("-1", "4.5", "four", "100001", "9" * 5000, "1e3"):
        with pytest.raises(ValueError, match="EVALCORE_LIVE_RESAMPLING_SESSIONS must be a whole number of "
                                             "sessions from 0 to 100,000"):
            activity.live_sessions({activity.ENV: raw})


def test_sessions_count_while_active_and_are_forgotten_after_the_window(monkeypatch):
    monkeypatch.setattr(activity, "_last", {})
    for i in range(6):
        activity.note(f"s{i}", now=100.0 + i)            # six tabs, one second apart
    assert activity.active(now=106.0) == 6
    assert activity.resampling_live(4, now=106.0) == (False, 6)
    activity.note("s0", now=150.0)                       # s0 moves again: it is the newest now
    assert activity.active(now=100.0 + activity.WINDOW_S + 3.5) == 3     # s4, s5 and s0 within 60 s
    assert activity.resampling_live(4, now=100.0 + activity.WINDOW_S + 3.5) == (True, 3)
    assert activity.active(now=1000.0) == 0
    assert activity._last == {}                          # forgotten, not only skipped


def test_the_sessions_remembered_are_bounded(monkeypatch):
    monkeypatch.setattr(activity, "_last", {})
    monkeypatch.setattr(activity, "MAX_TRACKED", 50)
    for i in range(500):
        activity.note(f"s{i}", now=float(i) / 100)
    assert len(activity._last) == 50 and "s499" in activity._last and "s449" not in activity._last


# -- the Overview on request ---------------------------------------------------------------------------

def _title(at, key: str) -> str:
    chart = next(c for c in at.get("plotly_chart") if c.key == key)
    return json.loads(chart.proto.spec)["layout"]["title"]["text"]


def _bars(at, key: str) -> dict[str, float]:
    tr = _chart(at, key)["data"][0]
    return dict(zip(tr["x"], tr["y"], strict=True))


def _text(at) -> str:
    return "\n".join([c.value for c in at.caption] + [m.value for m in at.markdown] + [i.value for i in at.info])


@pytest.fixture
def spy(monkeypatch):
    """Counts the resampling calls (kind, metrics) the dashboard makes; a fresh result store."""
    from dashboard import meta_kinds, meta_store, stores
    store = stores.Store(64)
    monkeypatch.setattr(meta_store, "_results", lambda: store)
    calls = []
    for kind in ("bootstrap", "swap"):
        fn, *rest = meta_kinds.META_KINDS[kind]

        def wrapped(sc, run_ids, _fn=fn, _kind=kind, **kw):
            calls.append((_kind, tuple(sorted(sc))))
            return _fn(sc, run_ids, **kw)
        monkeypatch.setitem(meta_kinds.META_KINDS, kind, (wrapped, *rest))
    return calls


def _open(query: dict) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params.update(query)
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def _graded(keys):
    return tuple(sorted(k for k in keys if registry.METRICS[k.partition("@")[0]].uses_gains))


def test_a_busy_server_computes_the_overview_resampling_when_asked(monkeypatch, spy):
    monkeypatch.setenv(activity.ENV, "0")            # always on request (as with more sessions than the limit)
    at = _open({**SMALL, "bsb": "60", "swb": "60"})
    # the session's first view computes by itself: the charts are there with no button
    assert {"ov_boot"} <= {c.key for c in at.get("plotly_chart")}
    assert not [b for b in at.button if b.key == "ov_dp_btn"]
    assert "earlier settings" not in _title(at, "ov_boot")
    n_first = len(spy)
    assert n_first >= 2

    # a move: nothing resampled; the earlier chart stays, labelled with the settings it was computed at
    g3 = gain_keys(at.session_state, 3)[1]
    at.number_input(key=g3).set_value(7.0).run()
    assert not at.exception, [e.message for e in at.exception]
    assert len(spy) == n_first
    assert "earlier settings" in _title(at, "ov_boot")
    text = _text(at)
    assert "The settings have changed since" in text and "=3 " in text.split("Computed at:")[1].split("\n")[0]
    assert f"`{activity.ENV}` = 0" in text
    [btn] = [b for b in at.button if b.key == "ov_dp_btn"]

    # asked: the current settings' results, equal to evalcore.meta called directly
    btn.click().run()
    assert not at.exception, [e.message for e in at.exception]
    assert spy[n_first:] and {k for k, _ in spy[n_first:]} == {"bootstrap", "swap"}
    assert all(m == _graded(SMALL["m"].split(",")) for _, m in spy[n_first:])   # AP was kept from before
    assert "earlier settings" not in _title(at, "ov_boot")
    assert not [b for b in at.button if b.key == "ov_dp_btn"]
    c = evalcore.simulated_collection(n_topics=20, n_runs=8, seed=0)
    keys = SMALL["m"].split(",")
    sc = {k: registry.score_matrix(c, k, gains=[1, 2, 7.0]) for k in keys}
    kept = at.session_state["_kept"]      # the Bootstrap page's settings, waiting while that page is not shown
    ref = meta.bootstrap_sensitivity(sc, run_ids=list(c.run_ids), B=60, seed=int(kept["bs_seed"]),
                                     alpha=float(kept["bs_alpha"]))
    want = dict(zip(ref.summary["metric"], ref.summary["pct_significant"] / 100, strict=True))
    got = _bars(at, "ov_boot")
    assert got.keys() == want.keys()
    assert all(abs(got[k] - want[k]) < 1e-12 for k in want)

    # the button again after another move: it works a second time
    at.number_input(key=g3).set_value(5.0).run()
    n = len(spy)
    [btn] = [b for b in at.button if b.key == "ov_dp_btn"]
    btn.click().run()
    assert not at.exception and len(spy) > n and "earlier settings" not in _title(at, "ov_boot")

    # a second session at settings another session has computed: drawn at once, no button, no computation
    other = _open({**SMALL, "bsb": "60", "swb": "60"})
    other.number_input(key=gain_keys(other.session_state, 3)[1]).set_value(7.0).run()
    n = len(spy)
    assert not other.exception
    # its first view computed the default gains; the move to 7.0 was computed by the first session
    assert len(spy) == n
    assert "earlier settings" not in _title(other, "ov_boot")
    assert "already computed at these settings (by this or another session)" in _text(other)
    assert not [b for b in other.button if b.key == "ov_dp_btn"]

    # other data (a new simulated seed here; an upload alike): its first view computes by itself
    n = len(spy)
    at.switch_page("views/data.py").run()
    at.number_input(key="sim_seed").set_value(int(at.session_state["sim_seed"]) + 1).run()
    at.switch_page("views/overview.py").run()
    assert not at.exception, [e.message for e in at.exception]
    assert len(spy) > n
    assert "earlier settings" not in _title(at, "ov_boot")
    assert not [b for b in at.button if b.key == "ov_dp_btn"]


def test_a_quiet_server_keeps_the_overview_resampling_live(monkeypatch, spy):
    monkeypatch.setenv(activity.ENV, "100000")
    at = _open({**SMALL, "bsb": "60", "swb": "60"})
    n = len(spy)
    at.number_input(key=gain_keys(at.session_state, 3)[1]).set_value(6.0).run()
    assert len(spy) > n                                   # the move recomputed the graded metrics
    assert "earlier settings" not in _title(at, "ov_boot")
    assert not [b for b in at.button if b.key == "ov_dp_btn"]


def test_a_bad_setting_is_said_on_the_page_and_the_default_used(monkeypatch, spy):
    monkeypatch.setenv(activity.ENV, "lots")
    at = _open({**SMALL, "bsb": "60", "swb": "60"})
    assert not at.exception
    [w] = [html.unescape(w.value) for w in at.warning if activity.ENV in html.unescape(w.value)]
    assert "got 'lots'" in w and f"Using the default, {activity.DEFAULT_LIVE}." in w
