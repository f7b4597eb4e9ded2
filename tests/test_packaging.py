"""Packaging: pyproject metadata, the console command's target, -OO, and evalcore free of the app's deps."""
from __future__ import annotations

import importlib
import subprocess
import sys
import tomllib
from pathlib import Path

import evalcore

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def _py(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_runtime_dependencies_are_only_numpy_pandas_pyarrow():
    names = sorted(d.split(">")[0].split("=")[0].strip() for d in PYPROJECT["project"]["dependencies"])
    assert names == ["numpy", "pandas", "pyarrow"]
    app = " ".join(PYPROJECT["project"]["optional-dependencies"]["app"])
    assert "streamlit" in app and "plotly" in app


def test_console_command_points_at_main():
    module, _, func = PYPROJECT["project"]["scripts"]["evalcore"].partition(":")
    assert getattr(importlib.import_module(module), func) is evalcore.cli.main


def test_help_works_under_python_OO_and_version_is_the_package_version():
    r = _py("-OO", "-m", "evalcore", "--help")
    assert r.returncode == 0, r.stderr
    for cmd in ("evaluate", "kendall", "swap", "bootstrap", "stability", "tukey", "app"):
        assert cmd in r.stdout
    r = _py("-OO", "-m", "evalcore", "swap", "--help")
    assert r.returncode == 0 and "With ``--output json``" in r.stdout, r.stderr
    r = _py("-m", "evalcore", "--version")
    assert r.stdout.strip() == f"evalcore {evalcore.__version__}"


def test_evalcore_and_its_cli_import_neither_streamlit_nor_plotly():
    r = _py("-c", "import sys, evalcore, evalcore.cli, evalcore.meta; "
                  "print(sorted(m for m in sys.modules if m.split('.')[0] in ('streamlit', 'plotly')))")
    assert r.returncode == 0 and r.stdout.strip() == "[]", r.stderr


def test_app_command_finds_the_checkout_or_says_how():
    from evalcore.cli.app import find_app

    assert find_app(str(ROOT)) == (ROOT / "app.py").resolve()
    r = _py("-m", "evalcore", "app", "--app-dir", "/nonexistent", "--dry-run")
    assert r.returncode == 2 and "the dashboard ships with the source checkout" in r.stderr
