"""Long computations a lecturer can stop, and "B x 10" that asks before minutes of work (AppTest).

A refinement to the chosen B runs after the page is drawn, with progress and a Stop button
(dashboard.live.finish_live): Stop interrupts it (its click's rerun, as any move does) and keeps it from
starting again at these settings until "Refine ... again". "B x 10" sets ten times the samples at once up to
dashboard.live.MORE_DIRECT_B and asks first above it; B's maximum is refused.
"""
from __future__ import annotations

import pytest

pytest.importorskip("streamlit")
from streamlit.runtime.scriptrunner_utils.exceptions import StopException  # noqa: E402
from test_app import _app, _goto  # noqa: E402

from dashboard import live, meta_store  # noqa: E402

SMALL = {"nt": "12", "nr": "5", "swb": "300", "bsb": "300"}


def _captions(at) -> str:
    return "\n".join(c.value for c in at.caption) + "\n".join(m.value for m in at.markdown)


def test_stop_keeps_the_quick_pass_until_refine_again(monkeypatch):
    monkeypatch.setattr(live, "BUDGET_S", 0.0)                    # every chosen B is refined after the page
    real = meta_store.meta_compute

    def interrupted(*a, progress=None, **kw):
        if progress is not None:          # the refinement: as if the browser's Stop click interrupted it here
            raise StopException
        return real(*a, progress=progress, **kw)
    monkeypatch.setattr(meta_store, "meta_compute", interrupted)
    at = _goto(_app({**SMALL, "bsb": "700", "bsseed": "3"}), "bootstrap")
    stop = [b for b in at.button if b.label == "Stop"]
    assert stop, [b.label for b in at.button]                      # drawn beside the progress bar
    monkeypatch.setattr(meta_store, "meta_compute", real)
    stop[0].click().run()
    assert not at.exception
    text = _captions(at)
    assert "Bootstrap: refining to the chosen B = 700 was **stopped** at" in text
    assert "Randomised Tukey HSD: refining to the chosen B = 700 was **stopped** before it started" in text
    for key in ("bs_chart", "tk_chart"):                          # the page's other refinements stopped too
        chart = next(c for c in at.get("plotly_chart") if c.key == key)
        assert f"B = {live.QUICK_B}" in chart.proto.spec and "B = 700" not in chart.proto.spec
    at.run()                                                       # another run at the same settings: not again
    assert "was **stopped** at" in _captions(at)
    again = next(b for b in at.button if b.label.startswith("Refine to B = 700 again"))
    again.click().run()                                            # asked: refined (that one)
    assert not at.exception and "Bootstrap: B = 700 (chosen)" in _captions(at)
    assert "Randomised Tukey HSD: refining to the chosen B = 700 was **stopped**" in _captions(at)


def test_b_times_10_asks_first_above_the_bound():
    at = _goto(_app({**SMALL, "bsb": "1000"}), "bootstrap")
    at.button(key="bs_B_more").click().run()
    assert at.number_input(key="bs_B").value == 10000             # up to MORE_DIRECT_B at once
    assert live.MORE_DIRECT_B == 10000
    at.button(key="bs_B_more").click().run()
    assert at.number_input(key="bs_B").value == 10000             # above it: asked, not done
    ask = [m.value for m in at.markdown if m.value.startswith("**B = 100,000?**")]
    assert ask and "Stop button" in ask[0]
    at.button(key="bs_B_ask_no").click().run()
    assert at.number_input(key="bs_B").value == 10000
    assert not [m for m in at.markdown if m.value.startswith("**B = 100,000?**")]


def test_b_at_its_maximum_refuses_more(monkeypatch):
    monkeypatch.setattr(live, "finish_live", lambda: None)        # the quick pass is enough here
    at = _goto(_app({**SMALL, "swb": "100000"}), "swap")
    more = at.button(key="sw_B_more")
    assert more.disabled and "maximum" in more.help


def test_the_report_build_can_be_stopped(monkeypatch):
    """The Report page's build shows progress and a Stop button; Stop leaves the page as it was and says so."""
    def interrupted(*a, **kw):            # as if the browser's Stop click interrupted the build here
        raise StopException
    monkeypatch.setattr(meta_store, "report_build", interrupted)
    at = _goto(_app(SMALL), "report")
    at.button(key="rp_build").click().run()
    stop = at.button(key="rp_stop")
    assert stop.label == "Stop"
    stop.click().run()
    assert not at.exception and "_report" not in at.session_state
    assert any("Building the report was stopped" in i.value for i in at.info)


def test_which_gains_shows_progress_and_stops(monkeypatch):
    """The "Which gains?" page: settings still to compute show progress and a Stop button; Stop leaves them out
    (said in their note and a caption) until "Compute the settings left out"."""
    from dashboard import gainsets
    monkeypatch.setattr(gainsets, "PROGRESS_AFTER_S", 0.0)
    real, calls = gainsets.power_spread, []

    def interrupted(*a, **kw):
        calls.append(1)
        if len(calls) == 2:                # the second setting: as if Stop's click interrupted it here
            raise StopException
        return real(*a, **kw)
    monkeypatch.setattr(gainsets, "power_spread", interrupted)
    at = _goto(_app({**SMALL, "bsseed": "97", "gvb": "100", "gvrep": "3"}), "gains")
    stop = at.button(key="gv_stop")
    monkeypatch.setattr(gainsets, "power_spread", real)
    stop.click().run()
    assert not at.exception
    table = next(d.value for d in at.dataframe if "gains (values used)" in d.value.columns)
    assert table["note"].eq("not computed: stopped").sum() == len(table) - 1      # all but the first
    assert any(c.value.startswith("Stopped: the discriminative power of") for c in at.caption)
    at.button(key="gv_resume").click().run()
    table = next(d.value for d in at.dataframe if "gains (values used)" in d.value.columns)
    assert not table["note"].eq("not computed: stopped").any()
