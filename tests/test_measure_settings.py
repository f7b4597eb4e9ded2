"""A measure's own parameter that is also a setting (a :class:`evalcore.specs.Param` declared with a
:class:`evalcore.specs.Setting`): the command line's option, the settings file's field, the dashboard's address
and its sidebar slider all follow the one declaration.

Every declared setting is walked (RBP's persistence ``p``, SetF's beta ``f_beta``), so a new one is checked
here without a line of its own. The numbers come from outside evalcore: SetF's beta against trec_eval's
``set_F.0.5`` through pytrec_eval, RBP's persistence against Moffat & Zobel 2008's sum worked by hand.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import pytest

import evalcore
from evalcore.app_settings import fit_to_app
from evalcore.cli import SUBCOMMANDS, build_parser, main
from evalcore.registry import SETTING_PARAMS, readers
from evalcore.settings import DEFAULTS, FIELDS, WIDGET_BOUNDS, SettingsError, parse_settings

ROOT = Path(__file__).resolve().parents[1]
DECLARED = [prm for prm in SETTING_PARAMS]
IDS = [prm.name for prm in DECLARED]

# a small collection where precision and recall differ on every topic (so that SetF's beta matters)
QRELS = "".join(f"{t} 0 {d} {r}\n" for t, d, r in [
    ("1", "a", 1), ("1", "b", 0), ("1", "c", 2), ("1", "d", 1),
    ("2", "e", 1), ("2", "f", 1), ("2", "g", 0),
    ("3", "h", 2), ("3", "i", 0)])
RUN = "".join(f"{t} Q0 {d} {k} {s} x\n" for t, d, k, s in [
    ("1", "a", 1, 3.0), ("1", "b", 2, 2.0), ("1", "z", 3, 1.0), ("1", "c", 4, 0.5),
    ("2", "e", 1, 2.0),
    ("3", "i", 1, 2.0), ("3", "h", 2, 1.5), ("3", "y", 3, 1.0)])


def test_the_declared_settings_include_rbps_persistence_and_setfs_beta():
    keys = {prm.name: prm.setting for prm in DECLARED}
    assert keys["p"].option == "--persistence" and keys["p"].widget == "rbp_p"     # released: never renamed
    assert keys["f_beta"].option == "--f-beta" and keys["f_beta"].label == "SetF beta"
    assert readers(evalcore.registry.PARAMS["f_beta"]) == ("SetF",)
    assert "Q-measure" not in readers(evalcore.registry.PARAMS["f_beta"])     # not Q-measure's beta


def _commands_with_metric_settings() -> dict[str, argparse.ArgumentParser]:
    """Every subcommand whose parser takes the metric settings (it has --beta), by name."""
    out = {}
    for command in (c for cmds in SUBCOMMANDS.values() for c in cmds):
        subs = next(a for a in build_parser(command)._actions if isinstance(a, argparse._SubParsersAction))
        parser = subs.choices[command]
        if any("--beta" in a.option_strings for a in parser._actions):
            out[command] = parser
    return out


@pytest.mark.parametrize("prm", DECLARED, ids=IDS)
def test_every_declared_setting_has_its_option_field_address_and_slider(prm):
    from dashboard import pages

    s = prm.setting
    # (1) the command line: every subcommand that takes metric settings has the option, with the field's bounds
    commands = _commands_with_metric_settings()
    assert {"evaluate", "compare", "report", "kendall", "swap", "bootstrap"} <= set(commands)
    for command, parser in commands.items():
        action = next((a for a in parser._actions if s.option in a.option_strings), None)
        assert action is not None, f"{command} has no {s.option}"
        kind, lo, hi, strict = action.type.bounds
        f = FIELDS[prm.name]
        assert (lo, hi, strict) == (f.low, f.high, f.low_open), (command, s.option)
    # (2) the settings file: the field under the parameter's name, with the declaration's bounds and default
    f = FIELDS[prm.name]
    assert f.kind == prm.kind and f.default == prm.default == DEFAULTS[prm.name] and f.role == "metric"
    assert f.low == prm.low and (f.low_open, f.high_open) == (prm.low_open, prm.high_open)
    assert f.high == (s.cap if prm.high is None else prm.high)
    assert f.widget == s.widget and WIDGET_BOUNDS[s.widget] == s.span
    # (3) the dashboard's address: ?<name>= sets the slider's session key, clamped to its span
    control = next(c for c in pages.SIDEBAR if c.name == prm.name)
    assert control.key == s.widget and control.default == prm.default and control.bounds == s.span
    # (4) a value other than the default reaches every measure that reads it, through the Python API
    assert readers(prm)


@pytest.mark.parametrize("prm", DECLARED, ids=IDS)
def test_a_value_out_of_bounds_is_refused_naming_the_bound(prm, capsys):
    s = prm.setting
    f = FIELDS[prm.name]
    too_high = f.high if f.high_open else f.high * 2
    too_low = f.low if f.low_open else f.low - 1
    for bad in (too_high, too_low):
        assert main(["evaluate", "--paper-examples", "--metrics", readers(prm)[0] + "@10" * (
            evalcore.registry.METRICS[readers(prm)[0]].cutoff == "required"), s.option, repr(bad)]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"error: {s.option} must be ") and f"{f.high:g}" in err and f"{f.low:g}" in err, err
        with pytest.raises(SettingsError, match=rf"{prm.name} must be between {f.low:g} and {f.high:g}"):
            parse_settings(json.dumps({prm.name: bad}))


@pytest.mark.parametrize("prm", DECLARED, ids=IDS)
def test_the_report_refuses_a_setting_none_of_its_metrics_reads(prm, tmp_path, capsys):
    out = tmp_path / "never"
    assert main(["report", "--simulated", "--out", str(out), prm.setting.option, "0.5"]) == 2
    assert f"report does not take {prm.setting.option}: none of Sakai 2007's seven metrics reads {prm.name}" in (
        capsys.readouterr().err)
    f = tmp_path / "s.json"
    f.write_text(json.dumps({prm.name: 0.5}))
    assert main(["report", "--simulated", "--out", str(out), "--settings", str(f)]) == 2
    assert f"report cannot use {prm.name} = 0.5 from --settings" in capsys.readouterr().err and not out.exists()


def test_a_bad_value_in_python_is_refused_by_the_kernel_and_an_unknown_setting_by_name():
    c = evalcore.paper_examples()
    with pytest.raises(ValueError, match="beta of SetF must be a finite number >= 0; got -1"):
        evalcore.evaluate(c, ["SetF"], f_beta=-1.0)
    with pytest.raises(TypeError, match="'persistence'.*one of .*f_beta"):
        evalcore.evaluate(c, ["RBP@10"], persistence=0.5)


# -- a value round-trips: settings file -> command line -> numbers from outside evalcore ------------------
def _write(tmp_path):
    q, r = tmp_path / "q.txt", tmp_path / "r.txt"
    q.write_text(QRELS)
    r.write_text(RUN)
    return q, r


def _per_topic(argv, capsys) -> dict[str, float]:
    assert main(["evaluate", "--per-topic", *argv]) == 0
    rows = [line.split("\t") for line in capsys.readouterr().out.splitlines()[1:]]
    return {r[1]: float(r[3]) for r in rows}


def _pytrec(measure: str) -> dict[str, float]:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels: dict[str, dict[str, int]] = {}
    for line in QRELS.splitlines():
        t, _, d, rel = line.split()
        qrels.setdefault(t, {})[d] = int(rel)
    run: dict[str, dict[str, float]] = {}
    for line in RUN.splitlines():
        t, _, d, _, s, _ = line.split()
        run.setdefault(t, {})[d] = float(s)
    got = pytrec_eval.RelevanceEvaluator(qrels, {measure}).evaluate(run)
    return {t: v[measure.partition(".")[0]] for t, v in got.items()}


@pytest.mark.parametrize("beta", [0.5, 2.0])
def test_setf_beta_from_a_settings_file_equals_trec_evals_set_f(beta, tmp_path, capsys):
    q, r = _write(tmp_path)
    want = _pytrec(f"set_F.{beta:g}")
    assert want != _pytrec("set_F")                       # the beta matters on this data
    data = ["--qrels", str(q), "--run", str(r), "--metrics", "SetF"]
    # the option, saved by --save-settings, read back from the file alone
    saved = tmp_path / "s.json"
    got = _per_topic([*data, "--f-beta", f"{beta:g}", "--save-settings", str(saved)], capsys)
    assert json.loads(saved.read_text())["settings"]["f_beta"] == beta
    for topic, v in want.items():
        assert got[topic] == pytest.approx(v, abs=1e-12), topic
    written = tmp_path / "w.json"
    written.write_text(json.dumps({"settings": {"f_beta": beta, "metrics": ["SetF"]}}))
    again = _per_topic(["--qrels", str(q), "--run", str(r), "--settings", str(written)], capsys)
    assert again == got
    # the default (1) is trec_eval's set_F; the option wins over the file
    plain = _per_topic([*data, "--settings", str(written), "--f-beta", "1"], capsys)
    for topic, v in _pytrec("set_F").items():
        assert plain[topic] == pytest.approx(v, abs=1e-12), topic
    # Q-measure's beta is another setting: --beta leaves SetF as it was
    assert _per_topic([*data, "--beta", f"{beta:g}"], capsys) == plain


def _rbp_by_hand(levels, k, p):
    """Moffat & Zobel 2008, Eq. 1 to rank k: (1 - p) sum_{r <= k} rel(r) p^(r-1), binary at level 1."""
    return (1 - p) * sum((L >= 1) * p ** (r - 1) for r, L in enumerate(levels[:k], 1))


def test_rbp_persistence_from_a_settings_file_equals_the_sum_by_hand(tmp_path, capsys):
    q, r = _write(tmp_path)
    # the run's levels at each rank, read off QRELS and RUN (unjudged: 0)
    lists = {"1": [1, 0, 0, 2], "2": [1], "3": [0, 2, 0]}
    written = tmp_path / "s.json"
    written.write_text(json.dumps({"settings": {"p": 0.5, "metrics": ["evalcore:RBP@3"]}}))
    got = _per_topic(["--qrels", str(q), "--run", str(r), "--settings", str(written)], capsys)
    for topic, levels in lists.items():
        assert got[topic] == pytest.approx(_rbp_by_hand(levels, 3, 0.5), abs=1e-12), topic
    assert got["1"] == pytest.approx(0.5)                                 # 0.5 * 1
    assert got["3"] == pytest.approx(0.25)                                # 0.5 * 0.5


def test_a_settings_file_fits_each_setting_onto_its_slider():
    a = fit_to_app(parse_settings(json.dumps({"metrics": ["SetF", "RBP@10"], "f_beta": 0.5, "p": 0.5})), 3)
    assert a.values["f_beta"] == 0.5 and a.values["rbp_p"] == 0.5 and a.notes == []
    a = fit_to_app(parse_settings(json.dumps({"f_beta": 40})), 3)            # the slider's span is 0..10
    assert a.values["f_beta"] == 10.0 and "f_beta 40" in a.notes[0] and "0..10" in a.notes[0]
    # a name fixing the value is shown when the file's own key agrees, refused when it does not
    a = fit_to_app(parse_settings(json.dumps({"metrics": ["SetF(beta=0.5)"], "f_beta": 0.5})), 3)
    assert a.values["metrics"] == ["SetF"]
    with pytest.raises(SettingsError, match="SetF.*f_beta=0.5"):
        fit_to_app(parse_settings(json.dumps({"metrics": ["SetF(beta=0.5)"]})), 3)


# -- the dashboard: the address lands in the slider, shown while a measure that reads it is chosen -------
@pytest.mark.parametrize("prm, metric", [(p, readers(p)[0]) for p in DECLARED], ids=IDS)
def test_the_address_lands_in_the_sidebar_slider(prm, metric):
    pytest.importorskip("streamlit")
    from streamlit.testing.v1 import AppTest

    from dashboard import scoring, state

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params.update({"nt": "10", "nr": "4", "seed": "3", prm.name: "0.5", "m": f"{metric},AP"})
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    slider = next(s for s in at.sidebar.slider if s.label == prm.setting.label)
    assert slider.value == pytest.approx(0.5)
    assert at.session_state[prm.setting.widget] == pytest.approx(0.5)
    # the scores the pages draw use it: the label says so, and the number is the Python API's with the value
    c = evalcore.simulated_collection(10, 4, seed=3)
    s = state.Settings(dataset="sim", gains=(1.0, 2.0, 3.0), beta=1.0, penalties=(4.0, 3.0, 2.0), cutoff=10,
                       rel_threshold=1, metrics=(metric,), top_n=0, top_by="AP", measure_settings=((prm.name, 0.5),))
    key = state.expand(metric, 10)
    want = evalcore.score_matrix(c, key, **{prm.name: 0.5})
    np.testing.assert_allclose(scoring.score(c, key, s), want, rtol=0, atol=1e-12)
    assert f"({prm.spellings[0]}=0.5)" in scoring.label(key, c, s)


def test_a_slider_is_hidden_while_no_chosen_metric_reads_it():
    pytest.importorskip("streamlit")
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params.update({"nt": "10", "nr": "4", "seed": "3", "f_beta": "0.5", "m": "AP,RBP"})
    at.run()
    assert not at.exception
    labels = [s.label for s in at.sidebar.slider]
    assert "RBP persistence p" in labels and "SetF beta" not in labels
    assert at.session_state["f_beta"] == pytest.approx(0.5)      # kept for when SetF is chosen
