"""Penalties in the app: penalties that grow with the level leave NWRR out with the API's message."""
from __future__ import annotations

from test_app import _app, _goto


def test_growing_penalties_in_the_address_are_refused_with_the_reason():
    """pen=4:3:2 reads S = 4, B = 2 (highest level first, as everywhere): a penalty growing with the level,
    which evalcore refuses (Sakai 2007 Sec. 3.2); the address's value is ignored with the reason said, and
    the defaults S:A:B = 2:3:4 stay."""
    at = _app({"pen": "4:3:2", "m": "AP,NWRR,RR"})
    import html
    msgs = [html.unescape(t.value) for t in at.toast]      # toasts quote the address as text (entities)
    assert any("ignored pen='4:3:2'" in m and "must not grow with the level" in m for m in msgs), msgs
    assert [at.session_state[f"p{L}"] for L in (3, 2, 1)] == [2.0, 3.0, 4.0]


def test_penalty_inputs_are_bounded_by_their_neighbours():
    """The widgets cannot make a penalty grow with the level: default S:A:B = 2:3:4 gives
    S in [1.01, 3], A in [2, 4], B in [3, 100]."""
    at = _goto(_app(), "rankings")
    at.session_state["_nwrr_open"] = True          # the sidebar's panel, opened
    at.run()
    p = {L: at.number_input(key=f"p{L}") for L in (1, 2, 3)}
    assert (p[3].min, p[3].max) == (1.01, 3.0)
    assert (p[2].min, p[2].max) == (2.0, 4.0)
    assert (p[1].min, p[1].max) == (3.0, 100.0)
    p[2].set_value(2.5).run()                      # A moves: S's maximum and B's minimum follow
    assert at.number_input(key="p3").max == 2.5 and at.number_input(key="p1").min == 2.5
    assert not at.exception


def test_the_penalty_panel_draws_its_inputs_only_while_open_and_keeps_their_values():
    """Collapsed (the default), the sidebar's "NWRR penalties" panel draws no input: a move of another
    setting does not pay for three widgets nobody sees. Opened, it shows the penalties; a value set there
    stays in the session, in NWRR and in the address after the panel closes and on another page."""
    at = _goto(_app({"m": "AP,NWRR,RR"}), "rankings")
    keys = {w.key for w in at.number_input}
    assert not keys & {"p1", "p2", "p3"}
    at.session_state["_nwrr_open"] = True
    at.run()
    assert {"p1", "p2", "p3"} <= {w.key for w in at.number_input}
    nwrr_before = float(at.dataframe[0].value["NWRR"].iloc[0])
    at.number_input(key="p3").set_value(1.5).run()
    nwrr_after = float(at.dataframe[0].value["NWRR"].iloc[0])
    assert nwrr_after != nwrr_before
    at.session_state["_nwrr_open"] = False
    at.run()
    assert not {"p1", "p2", "p3"} & {w.key for w in at.number_input}
    at.run()                                       # a rerun with the inputs gone: the value is kept
    pen = at.query_params["pen"]
    assert at.session_state["p3"] == 1.5 and (pen[0] if isinstance(pen, list) else pen) == "1.5:3:4"
    assert float(at.dataframe[0].value["NWRR"].iloc[0]) == nwrr_after
    _goto(at, "overview")
    assert at.session_state["p3"] == 1.5 and not at.exception
