"""The Report page writes `evalcore report`'s files: the same bytes as the command on the same data with
the same settings and seeds (views/report.py, dashboard/report.py, evalcore/cli/report.py)."""
from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest

pytest.importorskip("streamlit")
from streamlit.testing.v1 import AppTest  # noqa: E402

from evalcore.cli import main  # noqa: E402

APP = str(Path(__file__).resolve().parents[1] / "app.py")
#: small Monte Carlo sizes: the report runs in seconds
PAGE = {"rp_B": 30, "rp_tukey_B": 40, "rp_repeats": 2, "rp_seed": 7, "rp_topic_resamples": 4, "rp_topic_B": 20,
        "rp_topic_seed": 3, "rp_top": 5}
CLI = ["--B", "30", "--tukey-B", "40", "--repeats", "2", "--seed", "7", "--topic-resamples", "4", "--topic-B", "20",
       "--topic-seed", "3", "--top", "5"]


def _app_report(query: dict, threshold: str = "relaxed"):
    at = AppTest.from_file(APP, default_timeout=180)
    at.query_params.update(query)
    at.run()
    at.switch_page("views/report.py").run()
    if threshold != "relaxed":
        at.radio(key="threshold").set_value(threshold)
    for key, v in PAGE.items():
        at.number_input(key=key).set_value(v)
    at.run()
    at.button(key="rp_build").click().run()
    assert not at.exception, [e.message for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    return at


@pytest.mark.slow      # seconds each: the default loop stays under 10 minutes (CI runs -m slow)
@pytest.mark.parametrize("query, threshold, cli", [
    ({"nt": "12", "nr": "7", "seed": "4", "gains": "10:5:1", "beta": "2"}, "relaxed",
     ["--simulated", "--topics", "12", "--systems", "7", "--seed-data", "4", "--gains", "10:5:1", "--beta", "2"]),
    ({"nt": "10", "nr": "6"}, "rigid", ["--simulated", "--topics", "10", "--systems", "6", "--rel-threshold", "2"]),
])
def test_the_report_pages_files_are_the_commands_byte_for_byte(tmp_path, query, threshold, cli):
    at = _app_report(query, threshold)
    files, _ = at.session_state["_report"]
    out = tmp_path / "cli"
    assert main(["report", *cli, *CLI, "--out", str(out), "--quiet"]) == 0
    written = sorted(p.name for p in out.iterdir())
    # every file of the command, and Tables 7-8, the Monte Carlo spread and the comparison with 003 among them
    assert {"table7_topic_uncertainty.tex", "table8_metric_differences.csv", "report.md"} <= set(written)
    with zipfile.ZipFile(io.BytesIO(files["evalcore-report.zip"])) as z:
        zipped = {Path(n).name: z.read(n) for n in z.namelist()}
    assert sorted(zipped) == written
    for name in written:
        mine, theirs = files[name], (out / name).read_bytes()
        assert zipped[name] == mine
        if name == "report.md":
            # the one line that differs: the command's --out (the app's folder is evalcore-report)
            mine = mine.replace(b"--out evalcore-report", b"--out " + str(out).encode())
        assert mine == theirs, name
    md = files["report.md"].decode()
    assert "## Comparison with the paper's findings" in md and "±" in md and "## Table 7" in md
    tex = files["tables.tex"].decode()
    assert tex.count("\\begin{table}") == sum(n.endswith(".tex") for n in written)
    assert "0.9500" not in tex and "68.6700" not in tex
    # the command line it states is the one the command states
    shown = at.code[0].value
    assert shown.startswith("python -m evalcore report ") and all(opt in shown for opt in cli[:2])


def test_a_report_built_before_comes_back_and_a_changed_setting_is_flagged():
    at = _app_report({"nt": "10", "nr": "5"})
    first = at.session_state["_report"][0]["report.md"]
    at.button(key="rp_build").click().run()                   # the same options: the kept result, same bytes
    assert at.session_state["_report"][0]["report.md"] == first
    at.number_input(key="rp_seed").set_value(8).run()
    assert any("other data or settings" in w.value for w in at.warning)
