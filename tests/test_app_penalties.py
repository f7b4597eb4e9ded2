"""Issue 7 sec. 4 in the app: penalties that grow with the level leave NWRR out with the API's message."""
from __future__ import annotations

from test_app import _app, _goto


def test_growing_penalties_leave_nwrr_out_with_a_warning():
    at = _goto(_app({"pen": "4:3:2", "m": "AP,NWRR,RR"}), "3_rankings")      # paper notation: S = 4, B = 2
    msgs = [w.value for w in at.sidebar.warning]
    assert any("NWRR is left out" in m and "must not grow with the level" in m for m in msgs)
