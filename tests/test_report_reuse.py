"""Finished resampling rows reused (evalcore.meta.reuse): the same tables as computing them, and the Report
page takes what the Bootstrap page computed instead of computing it again."""
from __future__ import annotations

import functools
import io
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from evalcore._cache import BytesLRU
from evalcore.meta.repeat import derive_seeds, repeat

repeat_module = sys.modules["evalcore.meta.repeat"]

LEVEL = {"swap": "confidences", "bootstrap": "alpha", "tukey": "alpha", "stability": "fuzziness"}
WIDER = {"swap": (0.8, 0.95, 0.9), "bootstrap": (0.1, 0.05, 0.01), "tukey": (0.1, 0.05), "stability": (0.1, 0.05)}
ASKED = {"swap": (0.95,), "bootstrap": (0.05, 0.01), "tukey": 0.05, "stability": (0.05,)}


def _spy(monkeypatch, method):
    """Record (metrics, seed) of every call of ``method`` made through evalcore.meta.repeat."""
    calls = []
    func, keys, figures = repeat_module.METHODS[method]

    @functools.wraps(func)
    def counted(scores, **kw):
        calls.append((tuple(scores), kw["seed"]))
        return func(scores, **kw)
    monkeypatch.setitem(repeat_module.METHODS, method, (counted, keys, figures))
    return calls


@pytest.mark.parametrize("method", ["swap", "bootstrap", "tukey", "stability"])
def test_rows_taken_from_a_store_give_the_tables_of_the_plain_call_and_are_not_computed_again(monkeypatch, method):
    rng = np.random.default_rng(3)
    S = {m: rng.random((7, 15)) for m in ("RR", "AP", "Q", "nDCG")}
    kw = {"B": 60, LEVEL[method]: ASKED[method]}
    plain = repeat(method, S, repeats=3, seed=11, **kw)
    store = BytesLRU(None)
    calls = _spy(monkeypatch, method)
    # an earlier call (a page): two of the metrics, under other names, more repetitions, more levels, and for
    # the methods that draw topics only, the runs in another order (the report ranks them best first)
    order = [3, 0, 6, 1, 5, 2, 4] if method != "tukey" else list(range(7))
    repeat(method, {"Q-measure": S["Q"][order], "RR@x": S["RR"][order]}, repeats=5, seed=11, reuse=store,
           **{**kw, LEVEL[method]: WIDER[method]})
    del calls[:]
    got = repeat(method, S, repeats=3, seed=11, reuse=store, **kw)
    # only the two metrics not computed before, once per repetition
    assert calls == [(("AP", "nDCG"), s) for s in derive_seeds(11, 3)]
    assert got.per_repeat.to_csv() == plain.per_repeat.to_csv()
    assert got.spread.to_csv() == plain.spread.to_csv()
    del calls[:]
    again = repeat(method, S, repeats=2, seed=11, reuse=store, **kw)      # everything kept: nothing computed
    assert calls == [] and again.first is None
    assert again.per_repeat.to_csv() == plain.per_repeat[plain.per_repeat["repeat"] < 2].to_csv()
    # another seed or B is another computation
    repeat(method, S, repeats=1, seed=12, reuse=store, **kw)
    repeat(method, S, repeats=1, seed=11, reuse=store, **{**kw, "B": 61})
    assert calls == [(tuple(S), 12), (tuple(S), 11)]


def test_tukey_rows_are_not_taken_for_the_runs_in_another_order(monkeypatch):
    """Tukey HSD permutes scores across runs: the runs' order is part of its draw, so of its key."""
    rng = np.random.default_rng(4)
    S = {"AP": rng.random((6, 12))}
    store = BytesLRU(None)
    repeat("tukey", {"AP": S["AP"][::-1]}, seed=2, B=50, reuse=store)
    calls = _spy(monkeypatch, "tukey")
    repeat("tukey", S, seed=2, B=50, reuse=store)
    assert calls == [(("AP",), 2)]


st = pytest.importorskip("streamlit")
from streamlit.testing.v1 import AppTest  # noqa: E402

from evalcore.cli import main  # noqa: E402

APP = str(Path(__file__).resolve().parents[1] / "app.py")


@pytest.mark.slow      # seconds each: the default loop stays under 10 minutes (CI runs -m slow)
def test_the_report_takes_the_bootstrap_pages_rows_and_writes_the_commands_bytes(monkeypatch, tmp_path):
    from dashboard import meta_store

    meta_store._rows.clear()
    meta_store._results.clear()
    calls = _spy(monkeypatch, "bootstrap")
    at = AppTest.from_file(APP, default_timeout=240)
    at.query_params.update({"nt": "11", "nr": "6", "seed": "5"})
    at.run()
    at.switch_page("views/bootstrap.py").run()
    at.session_state["bs_B"] = 200                      # the report's B and seed (its page defaults: 200, 0)
    at.session_state["bs_seed"] = 0
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    page = [c for c in calls if c[1] in derive_seeds(0, 3)]
    assert page, "the Bootstrap page computed nothing at the report's seed"
    on_page = {m for ms, _ in page for m in ms}
    del calls[:]
    at.switch_page("views/report.py").run()
    for key, v in {"rp_repeats": 3, "rp_topic_resamples": 0}.items():
        at.number_input(key=key).set_value(v)
    at.run()
    at.button(key="rp_build").click().run()
    assert not at.exception, [e.message for e in at.exception]
    files, _ = at.session_state["_report"]
    # Table 4's seven metrics were on the page (with the same runs, in the collection's order, at the report's
    # B, seed and repetitions): not computed again. The report computed only Table 6's other gain settings
    # (named "P+ 30:20:10", ...), which no page had.
    assert {"RR", "NWRR", "O-measure", "P-measure", "P+-measure", "AP", "Q-measure"} <= on_page
    report_calls = [set(ms) for ms, s in calls]
    assert report_calls and all(" " in m for ms in report_calls for m in ms), report_calls
    out = tmp_path / "cli"
    assert main(["report", "--simulated", "--topics", "11", "--systems", "6", "--seed-data", "5", "--B", "200",
                 "--tukey-B", "500", "--repeats", "3", "--topic-resamples", "0", "--topic-B", "100", "--out", str(out),
                 "--quiet"]) == 0
    with zipfile.ZipFile(io.BytesIO(files["evalcore-report.zip"])) as z:
        assert sorted(Path(n).name for n in z.namelist()) == sorted(p.name for p in out.iterdir())
    for p in out.iterdir():
        mine = files[p.name]
        if p.name == "report.md":
            mine = mine.replace(b"--out evalcore-report", b"--out " + str(out).encode())
        assert mine == p.read_bytes(), p.name


@pytest.mark.parametrize("kind, method, params, repeats, computed", [
    # the Swap page's 5 Monte Carlo repetitions (confidences 95, 90, 80 %): all of Table 3's 3
    ("swap_spread", "swap", {"sampling": "replacement", "subset_size": None, "repeats": 5, "seed": 0}, 3, []),
    # the Stability page's one seed (fuzziness 1, 2, 5, 10 %): the first of the report's 2 repetitions
    ("stability", "stability", {"subset_size": None, "seed": 0}, 2, [1]),
])
def test_the_swap_and_stability_pages_rows_serve_the_report(monkeypatch, kind, method, params, repeats, computed):
    import evalcore
    from dashboard import meta_store, report, state, stores

    rows, results = stores.Store(10_000), stores.Store(64)
    monkeypatch.setattr(meta_store, "_rows", lambda: rows)
    monkeypatch.setattr(meta_store, "_results", lambda: results)
    c = evalcore.simulated_collection(n_topics=11, n_runs=6, seed=5)
    s = state.Settings(dataset="sim", gains=(1.0, 2.0, 3.0), beta=1.0, penalties=(4.0, 3.0, 2.0), cutoff=10,
                       rel_threshold=1, metrics=("AP", "Q-measure", "RR", "O-measure", "NWRR", "P-measure",
                                                 "P+-measure"), top_n=0, top_by="AP")
    meta_store.meta_compute(kind, c, s, params, 200)
    argv = ["--simulated", "--topics", "11", "--systems", "6", "--seed-data", "5", "--B", "200", "--tukey-B", "50",
            "--repeats", str(repeats), "--topic-resamples", "0", "--out", report.OUT, "--quiet"]
    calls = _spy(monkeypatch, method)
    _, files = meta_store.report_build(c, argv)
    seeds = derive_seeds(0, repeats)
    assert calls == [(("RR", "NWRR", "O-measure", "P-measure", "P+-measure", "AP", "Q-measure"), seeds[i])
                     for i in computed]
    monkeypatch.undo()
    _, plain = report.build(c, argv)                      # nothing reused: the command's own computation
    assert files.keys() == plain.keys()
    for name in plain:
        if name != "evalcore-report.zip":                # the zip's bytes carry its members' times
            assert files[name] == plain[name], name
