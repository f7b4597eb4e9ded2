"""Error texts in the app's words: an evalcore message that names a command-line option
(``--keep-first-duplicate``) or a Python keyword (``keep_first_duplicate=True``) reaches the user
as the app's control (or what to do in the app), while the command line keeps its own words.

Each error is raised for real by evalcore and fed through the app's error path (the Data page's
``errors.app_text`` then ``safe.md_lines``; the page guard's ``errors.message``).
"""
from __future__ import annotations

import gzip
import html
import io
import re
import zipfile

import numpy as np
import pytest

from dashboard import errors, safe
from evalcore.io import InputError, Limits, load_collection, read_qrels, read_run
from evalcore.io.errors import OPTION_HINTS, unforeseen
from evalcore.io.limits import read_limited

Q = b"q1 0 d1 1\nq2 0 d1 1\n"
R = b"q1 Q0 d1 1 1 x\nq1 Q0 d2 2 0 x\nq1 Q0 d3 3 -1 x\nq2 Q0 d1 1 1 x\n"


def _zip(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for k, v in members.items():
            z.writestr(k, v)
    return buf.getvalue()


def _raise(fn):
    with pytest.raises(InputError) as ei:
        fn()
    return ei.value


# (what, how it is raised, the option key, what the app says instead)
CASES = [
    ("a document listed twice", lambda: read_run(("r.txt", b"q1 Q0 d1 1 2 x\nq1 Q0 d1 2 1 x\n")),
     "keep_first_duplicate", '"keep first duplicate"'),
    ("a qrels file given as a run", lambda: load_collection(("q.txt", Q), [("r.txt", Q)]),
     "qrels_file", '"Qrels (one file)"'),
    ("a run line in the qrels", lambda: load_collection(("q.txt", Q + R), [("r.txt", R)]),
     "qrels_file", '"Qrels (one file)"'),
    ("a qrels of no known format", lambda: read_qrels(("q.txt", b"q1 0 d1 1 extra more\n")),
     "qrels_format", "tells the formats apart"),
    ("too many runs", lambda: load_collection(("q.txt", Q), [("a.txt", R), ("b.txt", R)],
                                              limits=Limits(max_runs=1)), "limit", "upload limits are fixed"),
    ("lists too deep", lambda: load_collection(("q.txt", Q), [("a.txt", R)], limits=Limits(max_depth=2)),
     "depth", "cut each run to its top documents"),
    ("a tensor too large", lambda: load_collection(("q.txt", Q), [("a.txt", R)],
                                                   limits=Limits(max_tensor_bytes=11)), "depth", "upload limits"),
    ("a file expanding too far", lambda: read_run(("r.txt.gz", gzip.compress(R * 100)),
                                                  limits=Limits(max_expanded_bytes=1000)), "limit", "upload limits"),
    ("an archive with too many members", lambda: load_collection(
        ("q.txt", Q), ("runs.zip", _zip({f"r{i}.txt": R for i in range(5)})), limits=Limits(max_members=2)),
     "limit", "upload limits"),
    ("a zip bomb", lambda: load_collection(("q.txt", Q), ("runs.zip", _zip({"r.txt": R * 2000})),
                                           limits=Limits(max_expanded_bytes=5000)), "limit", "upload limits"),
    ("out of memory", lambda: (_ for _ in ()).throw(unforeseen(MemoryError(), "runs.zip")),
     "depth", "cut each run to its top documents"),
]

_CLI_OR_CODE = re.compile(r"--[a-z]|=True|=False|=\.\.\.|Limits\(|load_collection|read_qrels|fmt=")


def _shown(markdown: str) -> str:
    """The text a reader sees in the error box (entities decoded, code spans as their text)."""
    return html.unescape(markdown.replace("`", ""))


@pytest.mark.parametrize("what, fn, key, words", CASES, ids=[c[0] for c in CASES])
def test_the_app_says_the_fix_with_its_own_controls(what, fn, key, words):
    e = _raise(fn)
    cli = str(e)
    assert key in e.options and _CLI_OR_CODE.search(cli), cli          # the library's words: unchanged
    shown = _shown(safe.md_lines(errors.app_text(e)))                   # the Data page's error box
    assert not _CLI_OR_CODE.search(shown), shown
    assert words in shown, shown
    assert errors.APP_WORDING[key] in shown
    # an unexpected error box (the page guard) words it the same way
    boxed = _shown(errors.message(e, "loading"))
    assert not _CLI_OR_CODE.search(boxed) and errors.APP_WORDING[key].strip() in boxed


def test_every_option_evalcore_names_has_the_apps_wording():
    assert set(errors.APP_WORDING) == set(OPTION_HINTS)
    assert all(not _CLI_OR_CODE.search(w) for w in errors.APP_WORDING.values())


def test_the_text_survives_the_load_worker():
    """The load worker (dashboard/loader.py) sends ``str(e)`` across a pipe and raises
    ``InputError(text)``: the options are found in the text alone."""
    e = _raise(CASES[0][1])
    again = InputError(str(e))
    assert again.options == () and "keep_first_duplicate=True" in str(again)
    shown = _shown(safe.md_lines(errors.app_text(again)))
    assert '"keep first duplicate"' in shown and not _CLI_OR_CODE.search(shown)


def test_text_without_an_option_is_left_as_it_is():
    text = "runs/a.txt, line 3: expected 6 fields, found 5"
    assert errors.app_text(text) == text
    assert errors.app_text(np.float64(1.5)) == "1.5"


def test_read_limited_hint_and_settings_hint(tmp_path):
    p = tmp_path / "big.json"
    p.write_bytes(b"x" * 100)
    e = _raise(lambda: read_limited(p, 10,
                                    hint="raise it: limits=Limits(max_expanded_bytes=...) or --max-expanded SIZE"))
    assert e.options == ("limit",)
    from evalcore.settings import SettingsError, read_settings
    big = tmp_path / "s.json"
    big.write_bytes(b" " * (2 ** 20 + 10))
    with pytest.raises(SettingsError) as ei:
        read_settings(big)
    assert "--save-settings" in str(ei.value)
    assert "--" not in errors.app_text(ei.value) and "Report page (Download settings)" in errors.app_text(ei.value)
