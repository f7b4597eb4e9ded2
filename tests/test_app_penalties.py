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
    p = {L: at.number_input(key=f"p{L}") for L in (1, 2, 3)}
    assert (p[3].min, p[3].max) == (1.01, 3.0)
    assert (p[2].min, p[2].max) == (2.0, 4.0)
    assert (p[1].min, p[1].max) == (3.0, 100.0)
    p[2].set_value(2.5).run()                      # A moves: S's maximum and B's minimum follow
    assert at.number_input(key="p3").max == 2.5 and at.number_input(key="p1").min == 2.5
    assert not at.exception
