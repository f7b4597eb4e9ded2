"""A link's settings survive the trip: the gains a link to uploaded data carries apply to that data once it is
uploaded (the page said they are kept), and a value from the address the sliders cannot show is reported with
the value used. Expected gains: the link's string read as evalcore reads every gains string
(:func:`evalcore.gains.resolve_gains`, highest level first), worked out by hand below."""
from __future__ import annotations

import html
from pathlib import Path

import pytest

pytest.importorskip("streamlit")
from streamlit.testing.v1 import AppTest  # noqa: E402

from dashboard import links  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "app.py")
# levels 0-4 (K = 4, the simulated collection shown meanwhile has 3), three topics, four runs
QRELS = b"".join(f"t{t} 0 d{d} {(d + t) % 5}\n".encode() for t in range(1, 4) for d in range(1, 9))
RUNS = [(f"run{r}.txt", b"".join(f"t{t} Q0 d{d} {i + 1} {20 - i - r} run{r}\n".encode()
                                 for t in range(1, 4) for i, d in enumerate(sorted(range(1, 9),
                                                                                   key=lambda d: (d * (r + 2)) % 9))))
        for r in range(4)]


def _gains(at: AppTest, K: int) -> list[float]:
    return [at.session_state[f"g{L}"] for L in range(1, K + 1)]


def _toasts(at: AppTest) -> list[str]:
    return [html.unescape(t.value) for t in at.toast]        # the app escapes what an address says


def test_a_links_gains_apply_to_the_upload_it_asks_for():
    links._links.clear()
    # a link made on 4-level data: 8:4:2:1 is L4=8 : L3=4 : L2=2 : L1=1 (it does not fit the 3-level stand-in)
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params.update({"data": "upload", "up": "0" * 40, "upname": "Alice's runs", "gains": "8:4:2:1"})
    at.run()
    assert at.error and "cannot be opened here" in at.error[0].value
    at.switch_page("views/data.py").run()              # the page offers the simulated data meanwhile
    assert not at.exception
    at.file_uploader(key="up_qrels").set_value(("qrels.txt", QRELS, "text/plain"))
    at.file_uploader(key="up_runs").set_value([(n, b, "text/plain") for n, b in RUNS])
    at.run()
    at.button(key="up_load").click().run()
    assert not at.exception, [e.message for e in at.exception]
    c = at.session_state["uploaded"]
    assert c.max_level == 4
    assert at.session_state["dataset"] == "upload"
    assert _gains(at, 4) == [1.0, 2.0, 4.0, 8.0]            # the link's, not the default 1, 2, 3, 4
    assert any("gains=8:4:2:1 from the link applied to the uploaded data: 8:4:2:1" in t for t in _toasts(at))


def test_a_gain_the_sliders_cannot_show_is_reported_with_the_value_used():
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params.update({"nt": "12", "nr": "6", "gains": "50:20:5"})
    at.run()
    assert not at.exception
    assert _gains(at, 3) == [5.0, 20.0, 30.0]                 # S = 50 is beyond the sliders' 30
    said = " ".join(_toasts(at))
    assert "50 -> 30" in said and "the gains used are 30:20:5" in said
