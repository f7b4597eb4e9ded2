"""The playground a teacher lectures with: Sakai 2007's worked examples (Sec. 3.2-3.3) filled into the
formulas step by step, two lists side by side (pin one, change the other), a "why" for each preset,
the NWRR penalty arithmetic per rank."""
from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

pytest.importorskip("streamlit")
import pandas as pd  # noqa: E402
from streamlit.testing.v1 import AppTest  # noqa: E402

from dashboard import teaching  # noqa: E402

APP = str(Path(__file__).resolve().parents[1] / "app.py")


def _playground(query=None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    if query:
        at.query_params.update(query)
    at.run()
    at.switch_page("views/playground.py").run()
    assert not at.exception, [e.message for e in at.exception]
    return at


# Sakai 2007 Sec. 3.2-3.3, topic with one S, one A, one B document, gains 3:2:1, beta = 1
PAPER = {  # preset: {metric: exact value}
    "Z": {"P-measure": Fraction(6, 7), "O-measure": Fraction(1, 2)},
    "Y": {"P-measure": Fraction(4, 7), "O-measure": Fraction(4, 7)},
    "X": {"P-measure": Fraction(1, 2), "O-measure": Fraction(1, 2)},
    "inverse": {"P-measure": Fraction(1), "P+-measure": (Fraction(2, 4) + Fraction(5, 7) + 1) / 3},
}


@pytest.mark.parametrize("preset", list(PAPER))
def test_the_filled_in_formula_arrives_at_the_paper_s_value(preset):
    at = _playground()
    at.button(key=f"pl_preset_{preset}").click().run()
    for metric, exact in PAPER[preset].items():
        at.selectbox(key="pl_formula").set_value(metric).run()
        # the worked steps are the LaTeX blocks ending in a number (the formula list below has none)
        steps = [x.value.strip("$\n") for x in at.latex]
        steps = [x for x in steps if x.rsplit("=", 1)[-1].strip().replace(".", "", 1).isdigit()]
        assert steps, "no worked formula"
        assert steps[-1].endswith(f"= {float(exact):.4f}"), (metric, steps)


def test_an_s_document_at_rank_3_gives_nwrr_one_fifth():
    """Sakai 2007: an S document at rank 3, penalties S:A:B = 2:3:4: NWRR = (1 - 1/2) / (3 - 1/2) = 1/5."""
    table, r1, rp = teaching.per_rank(teaching.one_topic([0, 0, 3], [1, 1, 1]), gains=[1, 2, 3], beta=1.0,
                                      penalties=[4, 3, 2])
    lines, v = teaching.worked_steps("NWRR", table, r1=r1, rp=rp, R=3, beta=1.0, penalties=[4, 3, 2], top_level=3)
    assert v == pytest.approx(0.2, abs=1e-12)
    assert table["1/(r - 1/pi(L))"].iloc[2] == pytest.approx(1 / (3 - 1 / 2))       # the per-rank column
    assert r"\frac{1 - 1/2}{3 - 1/2}" in lines[0]


def test_pin_a_list_and_compare_every_metric_side_by_side():
    at = _playground()
    at.button(key="pl_preset_Z").click().run()
    at.button(key="pl_pin_btn").click().run()
    at.button(key="pl_preset_inverse").click().run()
    assert at.query_params.get("plpin") in (["1,3|1,1,1"], "1,3|1,1,1")         # the pinned list is in the link
    both = _side_by_side(at)
    assert both.loc["P-measure", "pinned list"] == pytest.approx(6 / 7)           # Z
    assert both.loc["P-measure", "this list"] == pytest.approx(1.0)               # inverse
    assert both.loc["P+-measure", "this list"] == pytest.approx(float(PAPER["inverse"]["P+-measure"]))
    # both start with a B document: O = BR(1) = (1 + 1) / (3 + 1) for each, P+ differs
    assert both.loc["O-measure", "this - pinned"] == pytest.approx(0.0, abs=1e-12)
    assert both.loc["P+-measure", "this - pinned"] == pytest.approx(float(PAPER["inverse"]["P+-measure"])
                                                                   - (0.5 + 6 / 7) / 2)
    # a colleague opening the link sees the same two lists
    again = _playground({k: (v[0] if isinstance(v, list) else v) for k, v in at.query_params.items()})
    assert any("pinned list" in getattr(df.value, "columns", []) for df in again.dataframe)


def test_each_preset_says_why():
    at = _playground()
    helps = {b.key: b.help for b in at.button if str(b.key).startswith("pl_preset_")}
    assert len(helps) == 5 and all("Why:" in h for h in helps.values())
    assert "P+ < 1" in helps["pl_preset_inverse"]


def _side_by_side(at) -> pd.DataFrame:
    """The "Lists side by side" table (metric rows, one column per list)."""
    return next(df.value for df in at.dataframe if "X" in getattr(df.value, "columns", [])).set_index("metric")


def test_fig3_systems_side_by_side_under_the_chosen_metrics_only():
    """Sakai 2007 Fig. 3's X, Y, Z, the perfect inverse and the ideal list in one table, with the paper's
    values (gains 3:2:1, beta = 1), the pinned list among them, and only the sidebar's metrics as rows."""
    at = _playground({"m": "RR,O-measure,P-measure,P+-measure,NWRR"})
    at.button(key="pl_preset_Y").click().run()
    at.button(key="pl_pin_btn").click().run()
    t = _side_by_side(at)
    assert list(t.index) == ["RR", "O-measure", "P-measure", "P+-measure", "NWRR"]
    assert list(t.columns) == ["this list", "pinned list", "X", "Y", "Z", "inverse", "ideal", "this - pinned"]
    for preset, values in PAPER.items():
        for metric, exact in values.items():
            assert t.loc[metric, preset] == pytest.approx(float(exact), abs=1e-12), (preset, metric)
    assert t.loc["P-measure", "pinned list"] == pytest.approx(4 / 7)
    assert (t["ideal"] == 1.0).all()
    assert t.loc["RR", "Y"] == pytest.approx(0.5) and t.loc["RR", "X"] == 1.0
    # NWRR (penalties S:A:B = 2:3:4): X = (1 - 1/2) / (1 - 1/4), Y = (1 - 1/2) / (2 - 1/2)
    assert t.loc["NWRR", "X"] == pytest.approx(0.5 / 0.75) and t.loc["NWRR", "Y"] == pytest.approx(0.5 / 1.5)
    # fewer lists on request
    at.multiselect(key="pl_cmp").set_value(["X", "Z"]).run()
    assert list(_side_by_side(at).columns) == ["X", "Z"]


def test_non_relevant_ranks_read_as_a_dash_not_none():
    at = _playground()
    at.button(key="pl_preset_Y").click().run()           # non-relevant, then S
    at.button(key="pl_pin_btn").click().run()
    styled = [df for df in at.dataframe if "BR(r)" in getattr(df.value, "columns", [])]
    assert len(styled) == 3                               # this list, and the pinned / this list per rank
    for df in styled:
        shown = _display_values(df)                       # the text the browser shows in each cell
        assert df.value["BR(r)"].isna().iloc[0]           # rank 1 of Y is non-relevant: no BR ...
        assert shown["BR(r)"].iloc[0] == "-" and shown["pi(L)"].iloc[0] == "-"      # ... shown as "-"
        assert "None" not in shown.astype(str).to_numpy().ravel().tolist()
        assert shown["BR(r)"].iloc[1] == "0.5714"
    # the rank selector says "-" for a non-relevant document (a blank-looking selector said nothing)
    assert at.selectbox(key="pl_r1").format_func(0) == "-"


def _display_values(df) -> pd.DataFrame:
    """The cell texts a styled table shows (the Styler's display values Streamlit sends to the browser)."""
    import pyarrow as pa
    return pa.ipc.open_stream(df.proto.arrow_data.styler.display_values).read_all().to_pandas()
