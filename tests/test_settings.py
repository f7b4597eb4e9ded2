"""The one settings reader (evalcore.settings): atomic, type-checked; the CLI's precedence and --save-settings."""
from __future__ import annotations

import html
import json

import pytest

from evalcore.cli import main
from evalcore.settings import MAX_BYTES, SettingsError, dump_settings, parse_settings, read_settings


@pytest.mark.parametrize("text,msg", [
    ("[" * 100_000 + "]" * 100_000, "nested deeper than"),
    ('{"settings": {"swap": {"B": [[[[[1]]]]]}}}', "nested deeper than"),
    ('{"beta": Infinity}', "Infinity is not a finite number"),
    ('{"beta": NaN}', "NaN is not a finite number"),
    ('{"beta": -Infinity}', "-Infinity is not a finite number"),
    ('{"beta": 1e999}', "beta must be a finite number"),
    ('{"top_n": "abc"}', "top_n must be a whole number; got a string 'abc'"),
    ('{"top_n": 2.5}', "top_n must be a whole number; got 2.5"),
    ('{"top_n": true}', "top_n must be a whole number; got true/false True"),
    ('{"metrics": "AP"}', "metrics must be a list of metric names"),
    ('{"metrics": ["AP", "MAPP"]}', "metrics[1]: unknown metric 'MAPP'"),
    ('{"beat": 2}', "unknown key 'beat'"),
    ('{"gains": [1, 0, 3]}', "gains must be > 0 for every level; got 0 for level 2"),
    ('{"gains": "3:x:1"}', "gains must be numbers separated by ':'"),
    ('{"penalties": [4, 3, 1]}', "penalties must be > 1 for every level; got 1 for level 3"),
    ('{"cutoffs": [10, 0]}', "cutoffs[1] must be between 1 and 1e+06; got 0"),
    ('{"cutoffs": ' + json.dumps(list(range(1, 300))) + "}", "cutoffs must give 1 to 200"),
    ('{"mean": "median"}', "mean must be one of arithmetic, geometric"),
    ('{"swap": {"B": 100, "b": 3}}', "unknown key swap.b"),
    ('{"bootstrap": {"alpha": 1.5}}', "bootstrap.alpha must be between"),
    ('[1, 2]', "a settings file holds a JSON object; got a list"),
    ('{"beta": 2,}', "line 1: not valid JSON"),
])
def test_bad_settings_are_refused_with_the_reason(text, msg):
    with pytest.raises(SettingsError) as e:
        parse_settings(text, "s.json")
    assert str(e.value).startswith("s.json: ")
    assert msg in str(e.value)


def test_oversized_file_is_refused_before_parsing(tmp_path):
    f = tmp_path / "big.json"
    f.write_text('{"collection": "' + "x" * (MAX_BYTES + 10) + '"}')
    with pytest.raises(SettingsError, match="larger than"):
        read_settings(f)


def test_values_are_normalised():
    got = parse_settings('{"settings": {"gains": "10:5:1", "penalties": [4, 3, 2], "beta": 2, '
                         '"cutoffs": 5, "metrics": ["AP", "nDCG"], "swap": {"subset_size": null}}}')
    assert got == {"gains": "10:5:1", "penalties": [4.0, 3.0, 2.0], "beta": 2.0, "cutoffs": [5],
                   "metrics": ["AP", "nDCG"], "swap": {"subset_size": None}}


def test_gains_and_paper_notation_must_agree():
    assert parse_settings('{"gains": [1, 5, 10], "gains_paper_notation": "10:5:1"}')["gains"] == [1, 5, 10]
    with pytest.raises(SettingsError, match="disagree"):
        parse_settings('{"gains": [1, 5, 10], "gains_paper_notation": "3:2:1"}')


def test_dump_refuses_what_it_could_not_read_back():
    with pytest.raises(ValueError):
        dump_settings({"beta": float("nan")})


# -- CLI ----------------------------------------------------------------------
def _run(argv, capsys) -> str:
    assert main(argv) == 0, capsys.readouterr().err
    return capsys.readouterr().out


SIM = ["evaluate", "--simulated", "--topics", "6", "--systems", "4"]


def test_explicit_option_overrides_the_settings_file(tmp_path, capsys):
    f = tmp_path / "s.json"
    f.write_text(json.dumps({"settings": {"beta": 2, "cutoffs": [5], "rel_threshold": 2, "mean": "geometric"}}))
    plain = _run(SIM + ["--metrics", "Q-measure", "nDCG", "AP"], capsys)
    over = _run(SIM + ["--metrics", "Q-measure", "nDCG", "AP", "--settings", str(f), "--beta", "1",
                       "--cutoffs", "10,1000", "--rel-threshold", "1", "--mean", "arithmetic"], capsys)
    assert over == plain
    from_file = _run(SIM + ["--metrics", "Q-measure", "nDCG", "AP", "--settings", str(f)], capsys)
    explicit = _run(SIM + ["--metrics", "Q-measure", "nDCG", "AP", "--beta", "2", "--cutoffs", "5",
                           "--rel-threshold", "2", "--mean", "geometric"], capsys)
    assert from_file == explicit and from_file != plain


def test_save_settings_round_trips(tmp_path, capsys):
    f = tmp_path / "saved.json"
    argv = SIM + ["--metrics", "Q-measure", "P+-measure", "nDCG", "--gains", "10:5:1", "--beta", "3",
                  "--cutoffs", "5,20", "--penalties", "3:4:5", "--per-topic"]
    first = _run(argv + ["--save-settings", str(f)], capsys)
    saved = read_settings(f)
    assert saved["gains"] == [1, 5, 10] and saved["beta"] == 3 and saved["cutoffs"] == [5, 20]
    assert saved["metrics"] == ["Q-measure", "P+-measure", "nDCG"]
    assert _run(SIM + ["--per-topic", "--settings", str(f)], capsys) == first


def test_bad_settings_file_is_an_error_message(tmp_path, capsys):
    f = tmp_path / "s.json"
    f.write_text('{"beta": NaN}')
    assert main(SIM + ["--settings", str(f)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {f}: NaN is not a finite number")


def test_help_advertises_save_settings(capsys):
    with pytest.raises(SystemExit):
        main(["evaluate", "--help"])
    assert "--save-settings" in capsys.readouterr().out


# -- --save-settings: checked before the computation, written atomically ------------------------------
def test_save_settings_path_is_checked_before_anything_is_computed(tmp_path, capsys, monkeypatch):
    import evalcore.registry

    def must_not_run(*a, **k):
        raise AssertionError("scored although the output path is bad")
    monkeypatch.setattr(evalcore.registry, "evaluate", must_not_run)
    monkeypatch.setattr(evalcore.registry, "evaluate_rows", must_not_run)  # (what `evalcore evaluate` calls)
    missing = tmp_path / "no-such-dir" / "s.json"
    assert main(SIM + ["--save-settings", str(missing)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith(f"error: {missing.parent}: no such directory")
    assert main(SIM + ["--save-settings", str(tmp_path)]) == 2
    assert f"{tmp_path}: is a directory; --save-settings needs a file name" in capsys.readouterr().err


def test_save_settings_replaces_a_file_whole_or_not_at_all(tmp_path, capsys, monkeypatch):
    import errno

    import evalcore._atomic

    f = tmp_path / "s.json"
    f.write_text("the earlier settings\n")

    def disk_full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(evalcore._atomic.os, "fsync", disk_full)
    assert main(SIM + ["--beta", "3", "--save-settings", str(f)]) == 2
    err = capsys.readouterr().err
    assert f"{f}: could not be written (No space left on device)" in err
    assert f.read_text() == "the earlier settings\n" and sorted(p.name for p in tmp_path.iterdir()) == ["s.json"]
    monkeypatch.undo()
    assert main(SIM + ["--beta", "3", "--save-settings", str(f)]) == 0
    capsys.readouterr()
    assert read_settings(f)["beta"] == 3 and sorted(p.name for p in tmp_path.iterdir()) == ["s.json"]


def test_save_settings_is_refused_where_it_would_be_ignored(capsys):
    assert main(["kendall", "--simulated", "--topics", "5", "--systems", "3", "--save-settings", "x.json"]) == 2
    assert "--save-settings is written by 'evaluate' only" in capsys.readouterr().err


# -- the app's view of a settings file: every change said, metrics it cannot show refused -------------
def _fit(doc: dict, K: int = 3):
    from evalcore.app_settings import fit_to_app

    return fit_to_app(parse_settings(json.dumps(doc)), K)


def test_app_import_says_every_clamp_and_snap():
    a = _fit({"beta": 40, "cutoffs": [5, 20], "rel_threshold": 3, "log_base": 10, "mean": "geometric",
              "dataset": "upload", "gains": [0.01, 2, 50],
              "bootstrap": {"alpha": 0.9, "B": 10**7, "seed": 7}, "swap": {"B": 5, "subset_size": None}})
    v = a.values
    assert (v["beta"], v["cutoff"], v["threshold"], v["bs_alpha"], v["bs_B"], v["bs_seed"], v["sw_B"]) == (
        10.0, 5, "rigid", 0.1, 100_000, 7, 10)
    assert (v["g1"], v["g2"], v["g3"]) == (0.1, 2.0, 30.0)
    notes = "\n".join(a.notes)
    for words in ("beta 40 is outside the app's range 0..10: set to 10",
                  "cutoffs [5, 20]: the app shows one cutoff, 5",
                  "rel_threshold 3: the app offers 1 (relaxed) and 2 (rigid): set to 2",
                  "log_base 10 is not used", "mean 'geometric' is not used",
                  "dataset \"upload\": a settings file cannot upload data",
                  "gain of level 1 0.01 is outside the app's range 0.1..30: set to 0.1",
                  "gain of level 3 50 is outside the app's range 0.1..30: set to 30",
                  "bootstrap.alpha 0.9 is not one of the app's levels 0.001, 0.01, 0.05, 0.1: set to 0.1",
                  "bootstrap.B 10,000,000 is outside the app's range 10..100,000: set to 100,000",
                  "swap.B 5 is outside the app's range 10..100,000: set to 10"):
        assert words in notes, words
    assert len(a.notes) == 11


def test_app_import_of_a_file_it_can_show_exactly_has_no_notes():
    a = _fit({"gains": [1, 5, 10], "beta": 2, "cutoffs": [10], "metrics": ["AP", "nDCG@10", "Q-measure"],
              "bootstrap": {"alpha": 0.05, "B": 1000}})
    assert a.notes == [] and a.values["metrics"] == ["AP", "nDCG", "Q-measure"] and a.values["cutoff"] == 10


@pytest.mark.parametrize("metrics, words", [
    (["P(rel=2)@5", "nDCG@20", "irm:nDCG@10"], ["P(rel=2)@5 (fixes rel_threshold=2",
                                                "irm:nDCG@10 (the app shows every metric at one cutoff, 20"]),
    (["AP@100"], ["AP@100 (the app shows AP over the whole list, not cut at 100)"]),
    (["Q-measure(beta=2)"], ["Q-measure(beta=2) (fixes beta=2"]),
])
def test_app_import_refuses_metrics_it_cannot_show(metrics, words):
    with pytest.raises(SettingsError) as e:
        _fit({"metrics": metrics})
    for w in words:
        assert w in str(e.value)


def test_app_import_names_peer_names_it_translates():
    a = _fit({"metrics": ["map", "P_10"]})
    assert a.values["metrics"] == ["AP", "P"] and a.values["cutoff"] == 10
    assert a.notes == ["metric map is shown as AP", "metric P_10 is shown as P@10"]


def test_the_cli_says_which_settings_it_does_not_use(tmp_path, capsys):
    f = tmp_path / "s.json"
    f.write_text(json.dumps({"settings": {"beta": 2, "top_n": 5, "bootstrap": {"alpha": 0.9, "B": 10**7},
                                          "collection": "informational"}}))
    assert main(SIM + ["--metrics", "AP", "--settings", str(f)]) == 0
    err = capsys.readouterr().err
    assert f"warning: {f}: top_n, bootstrap are not used by the command line" in err and "collection" not in err


# -- the app's settings reload: a hostile file is an error box; a changed one says what changed ----------
def _report_page():
    from pathlib import Path

    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(Path(__file__).resolve().parents[1] / "app.py"), default_timeout=120)
    at.run()
    at.switch_page("views/report.py").run()
    assert not at.exception
    return at


def _reload(at, name: str, data: bytes):
    at.file_uploader(key="rp_settings_file").set_value((name, data, "application/json"))
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def test_the_app_refuses_a_deeply_nested_settings_file_without_a_traceback():
    at = _reload(_report_page(), "deep.json", ('{"settings":' + "[" * 600 + "]" * 600 + "}").encode())
    # the message is escaped for Markdown (dashboard.safe): compare the text a reader sees
    shown = [html.unescape(e.value).replace("\u200b", "") for e in at.error]
    assert any("deep.json: nested deeper than 4 levels" in m and "nothing was changed" in m for m in shown)


def test_the_app_lists_every_change_it_made_to_a_settings_file():
    doc = {"settings": {"beta": 40, "bootstrap": {"alpha": 0.9, "B": 10**7}}}
    at = _reload(_report_page(), "s.json", json.dumps(doc).encode())
    assert any("applied with changes" in w.value for w in at.warning)
    shown = "\n".join(t.value for t in at.text)
    assert "s.json: beta 40 is outside the app's range 0..10: set to 10" in shown
    assert "bootstrap.alpha 0.9 is not one of the app's levels" in shown and "set to 100,000" in shown
    kept = at.session_state["_kept"]      # the Bootstrap page's settings wait there while the Report page is shown
    assert kept["bs_alpha"] == 0.1 and kept["bs_B"] == 100_000 and "bs_B" not in at.session_state
    at = _reload(at, "m.json", json.dumps({"metrics": ["P(rel=2)@5", "nDCG@20", "irm:nDCG@10"]}).encode())
    shown = [html.unescape(e.value).replace("\u200b", "") for e in at.error]
    assert any("metrics the app cannot show as written" in m and "nothing was changed" in m for m in shown)


# -- one schema: the file, the command line and the app read evalcore.settings.FIELDS --------------------
@pytest.mark.parametrize("key, option", [("beta", "--beta"), ("rel_threshold", "--rel-threshold"),
                                         ("log_base", "--log-base")])
def test_metric_parameter_bounds_come_from_the_metric_table(key, option, capsys):
    """The metric's own lower bound and default (registry.PARAMS) hold in the file and on the command line:
    beta >= 0, rel_threshold >= 1, log_base > 1 (open: Jarvelin & Kekalainen 2002's log_b needs b > 1)."""
    from evalcore.registry import PARAMS
    from evalcore.settings import DEFAULTS, FIELDS

    p, f = PARAMS[key], FIELDS[key]
    assert (f.low, f.low_open, f.default, DEFAULTS[key]) == (p.low, p.low_open, p.default, p.default)
    below = {"beta": -0.5, "rel_threshold": 0, "log_base": 1}[key]   # at or past the metric's lower bound
    inside = {"beta": 0, "rel_threshold": 1, "log_base": 1.5}[key]
    with pytest.raises(SettingsError, match=f"{key} must be between"):
        parse_settings(json.dumps({key: below}))
    assert parse_settings(json.dumps({key: inside}))[key] == inside
    assert main(SIM + ["--metrics", "AP", option, str(below)]) == 2
    assert f"{option} must be >" in capsys.readouterr().err
    assert main(SIM + ["--metrics", "AP", option, str(inside)]) == 0


def test_the_app_fits_every_group_key_the_file_accepts():
    """Every key of a group has a widget and a way to be fitted: a file the reader accepts never
    fails in the app with a KeyError (the schema holds both)."""
    from evalcore.settings import FIELDS

    doc = {g.key: {f.key: ({"int": 3, "int|None": None, "float": 0.05, "choice": f.choices[0] if f.choices else 0}
                           [f.kind]) for f in g.fields} for g in FIELDS.values() if g.kind == "group"}
    a = _fit(doc)
    assert (a.values["sim_topics"], a.values["sw_sampling"], a.values["sw_subset"], a.values["bs_alpha"],
            a.values["bs_B"], a.values["st_seed"]) == (3, "replacement", 0, 0.05, 10, 3)
    assert "bootstrap.B 3 is outside the app's range 10..100,000: set to 10" in a.notes


# -- numbers no setting could take: refused by file and key, not by Python's int-conversion limit ---------
@pytest.mark.parametrize("doc, key", [
    ('{"beta": %s}' % ("9" * 5000), "beta is a number of 5,000 characters"),
    ('{"beta": 1%s}' % ("0" * 400), "beta is a number of 401 characters"),
    ('{"settings": {"swap": {"B": %s}}}' % ("9" * 5000), "settings.swap.B is a number of 5,000 characters"),
    ('{"gains": [1, 2, -%s]}' % ("9" * 30), "gains[2] is a number of 31 characters"),
    ('{"bootstrap": {"seed": 123456789012345678901234}}', "bootstrap.seed is 123456789012345678901234"),
])
def test_huge_numbers_in_a_settings_file_name_the_file_and_key(doc, key, tmp_path, capsys):
    f = tmp_path / "huge.json"
    f.write_text(doc)
    assert main(SIM + ["--settings", str(f)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {f}: {key}, far outside the range of any setting") and err.count("\n") == 1, err
    assert len(err) < 400


# -- a relevance threshold above the collection's levels is said, not silently scored 0 ---------------
def test_a_threshold_above_the_levels_is_warned_naming_the_metrics(capsys):
    assert main(SIM + ["--rel-threshold", "99", "-m", "AP", "RR", "Q-measure"]) == 0
    err = capsys.readouterr().err
    assert ("warning: relevance threshold 99 is above the collection's highest relevance level (3): no document "
            "counts as relevant, so every score of AP, RR is 0; give a threshold of 1 to 3") in err
    assert main(SIM + ["--rel-threshold", "3", "-m", "AP"]) == 0
    assert "relevance threshold" not in capsys.readouterr().err


def test_a_threshold_above_the_levels_warns_in_python_too():
    import warnings

    import evalcore
    from evalcore.registry import ThresholdWarning

    c = evalcore.simulate.simulated_collection(5, 3, seed=0)
    with pytest.warns(ThresholdWarning, match=r"threshold 4 .* every score of AP\(rel=4\) is 0"):
        s = evalcore.score_matrices(c, ["AP(rel=4)", "Q-measure"])
    assert float(abs(s["AP(rel=4)"]).max()) == 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("error", ThresholdWarning)
        evalcore.score_matrices(c, ["AP(rel=3)", "RR"], rel_threshold=3)
