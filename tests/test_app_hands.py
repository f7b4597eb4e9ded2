"""The gain widgets' rule for fast hands (dashboard.state.sync_gain_widgets / gain_from_widget), step by step.

A level's gain is shown by three widgets: the sidebar's slider and exact-value box and, in presentation mode,
a box in the row at the top of the page. Whichever one the user changes keeps its key; the others are drawn
afresh under new keys. In a burst of presses the browser reports widgets it still shows (earlier versions) and
Streamlit may call the callback of one nobody touched: those calls must change nothing. The real-browser test
of the same rule is tests/test_browser_hands.py; here the callbacks are called as Streamlit calls them, on a
session state of their own.
"""
from __future__ import annotations

import pytest

pytest.importorskip("streamlit")
from dashboard import state  # noqa: E402


@pytest.fixture
def ss(monkeypatch):
    """A session with gains 1:2:3 (ascending) and every widget of level 3 drawn once."""
    session: dict = {"g1": 1.0, "g2": 2.0, "g3": 3.0}

    class _St:
        session_state = session
    monkeypatch.setattr(state, "st", _St)
    from dashboard import errors
    monkeypatch.setattr(errors, "st", _St)
    state.sync_gain_widgets(3)
    return session


def _draw(ss, L=3):
    """A run: each widget of level ``L`` drawn under its key of this run, holding its value (a fresh widget
    its initial value, as Streamlit gives it); returns the keys."""
    state.sync_gain_widgets(L)
    keys = {"slider": state.gain_keys(ss, L)[0], "box": state.gain_keys(ss, L)[1], "row": state.gain_row_key(ss, L)}
    for which, key in keys.items():
        ss.setdefault(key, state.nearest_stop(ss[f"g{L}"]) if which == "slider" else ss[f"g{L}"])
    return keys


def test_a_change_keeps_its_widget_and_redraws_the_others(ss):
    k = _draw(ss)
    ss[k["row"]] = 3.1                                    # ArrowUp on the row's box
    state.gain_from_widget(3, "row", k["row"])
    assert ss["g3"] == 3.1
    k2 = _draw(ss)
    assert k2["row"] == k["row"] and k2["box"] != k["box"] and k2["slider"] != k["slider"]
    assert ss[k2["slider"]] == 3.0 and ss[k2["box"]] == 3.1      # the slider shows the nearest stop


def test_a_widget_no_longer_drawn_changes_nothing(ss):
    k = _draw(ss)
    ss[k["row"]] = 3.1
    state.gain_from_widget(3, "row", k["row"])
    _draw(ss)
    # the browser still reports the slider it showed before (3.0) and Streamlit calls its callback
    state.gain_from_widget(3, "slider", k["slider"])
    assert ss["g3"] == 3.1


def test_a_fresh_widget_nobody_touched_changes_nothing(ss):
    k = _draw(ss)
    ss[k["row"]] = 3.2
    state.gain_from_widget(3, "row", k["row"])
    k2 = _draw(ss)                                        # the slider drawn afresh at the stop 3 for a gain of 3.2
    state.gain_from_widget(3, "slider", k2["slider"])     # called though its value is the one it was drawn with
    assert ss["g3"] == 3.2                                # before: the gain snapped to the stop, 3
    ss[k2["row"]] = 3.3                                   # the burst goes on from where it was
    state.gain_from_widget(3, "row", k2["row"])
    assert ss["g3"] == 3.3


def test_moved_away_and_back_is_two_changes(ss):
    k = _draw(ss)
    ss[k["slider"]] = 4.0
    state.gain_from_widget(3, "slider", k["slider"])
    assert ss["g3"] == 4.0
    _draw(ss)
    ss[k["slider"]] = 3.0                                 # back to the value it was drawn with: a change
    state.gain_from_widget(3, "slider", k["slider"])
    assert ss["g3"] == 3.0


def test_a_gain_set_elsewhere_redraws_every_widget(ss):
    k = _draw(ss)
    ss["g3"] = 10.0                                       # a preset, the address, a settings file
    k2 = _draw(ss)
    assert all(k2[w] != k[w] for w in k) and ss[k2["row"]] == 10.0 and ss[k2["slider"]] == 10.0
