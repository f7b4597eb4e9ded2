"""The distribution name: ``evalcore-ir`` (the PyPI name ``evalcore`` is an unrelated project's). No text in
the checkout tells anyone to ``pip install evalcore`` or ``evalcore[extra]``, which would install that other
project, and ``--version`` says which distribution runs."""
from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: a pip command up to the end of its shell command (``&&``, ``;``, a pipe, a code span's end) or of its
#: clause (``(``, ``,``)
_PIP = re.compile(r"pip3?\s+(?:install|download|wheel)\b([^\n&;|`(,]*)")


def wrong_install_names(text: str) -> list[str]:
    """The ``pip install`` arguments in ``text`` that name the distribution ``evalcore`` (with or without extras).

    >>> wrong_install_names('pip install "evalcore[stats]" && evalcore app; pip install -U evalcore')
    ['"evalcore[stats]"', 'evalcore']
    >>> wrong_install_names('pip install "evalcore-ir[app]" && evalcore app')
    []
    """
    bad = []
    for m in _PIP.finditer(text):
        for tok in m.group(1).split():
            name = tok.strip("\"'\\()").split("[")[0].split("==")[0].split(">=")[0]
            if name.lower() == "evalcore":
                bad.append(tok.rstrip("\\"))
    return bad


def _tracked_text_files() -> list[Path]:
    try:
        out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True,
                             timeout=60).stdout.split()
        files = [ROOT / f for f in out]
    except (OSError, subprocess.CalledProcessError):
        files = [p for p in ROOT.rglob("*") if ".git" not in p.parts]
    return [p for p in files if p.is_file() and p.suffix in (".py", ".md", ".toml", ".txt", ".cfg", ".ini", ".in",
                                                              ".cff", "") and p.stat().st_size < 5_000_000]


def test_the_detector_finds_the_wrong_name_in_each_spelling():
    for text in ('pip install "evalcore[app]"', "pip install evalcore", "python -m pip install -U 'evalcore[stats]'",
                 'raise X("... pip install \\"evalcore[dask]\\"")', "pip install evalcore==0.1.0"):
        assert wrong_install_names(text), text
    for text in ('pip install "evalcore-ir[app]"', "pip install .", 'pip install ".[app]" && evalcore app',
                 "pip install evalcore_ir", "pip install -r requirements-dev.txt && python -m pytest"):
        assert wrong_install_names(text) == [], text


def test_no_text_tells_users_to_pip_install_the_unrelated_evalcore():
    found = {}
    for p in _tracked_text_files():
        if p.resolve() == Path(__file__).resolve():       # this file spells the wrong name to test the detector
            continue
        try:
            bad = wrong_install_names(p.read_text(encoding="utf-8"))
        except UnicodeDecodeError:
            continue
        if bad:
            found[str(p.relative_to(ROOT))] = bad
    assert found == {}, f"these say pip install evalcore, an unrelated PyPI project; write evalcore-ir: {found}"


def test_pyproject_names_the_distribution_and_its_extras_by_it():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["name"] == "evalcore-ir"
    refs = [d for deps in project["optional-dependencies"].values() for d in deps if d.startswith("evalcore")]
    assert refs and all(d.startswith("evalcore-ir[") for d in refs), refs


def test_version_says_which_distribution_runs():
    import evalcore
    r = subprocess.run([sys.executable, "-m", "evalcore", "--version"], cwd=ROOT, capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == f"evalcore {evalcore.__version__}"
    assert lines[1].startswith("distribution: evalcore-ir"), lines
    assert not any(line.startswith("warning:") for line in lines), lines


def test_version_warns_when_the_unrelated_evalcore_is_installed_beside(tmp_path):
    """A fake installed distribution named ``evalcore`` (its metadata only) on the path: --version says to
    remove it."""
    info = tmp_path / "evalcore-2.6.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: evalcore\nVersion: 2.6.1\n")
    r = subprocess.run([sys.executable, "-c", "import sys; sys.path.append(sys.argv[1]); import evalcore; "
                        "print('\\n'.join(evalcore.provenance()))", str(tmp_path)],
                       cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    warn = [line for line in r.stdout.splitlines() if line.startswith("warning:")]
    assert len(warn) == 1 and "'evalcore' 2.6.1" in warn[0] and "pip uninstall evalcore" in warn[0], r.stdout




def test_the_dashboards_about_names_the_distribution_without_the_servers_folders():
    pytest.importorskip("streamlit")
    import evalcore
    from dashboard import shell
    text = shell.about()
    assert text.startswith(f"evalcore {evalcore.__version__}") and "distribution: evalcore-ir" in text
    assert str(ROOT) not in text and "module at" not in text
