"""Build hook: ship the dashboard in the wheel (all metadata is in pyproject.toml).

The dashboard's script ``app.py``, its pages ``views/*.py`` (every file there, whatever its name), its
helpers ``dashboard/*.py`` and ``.streamlit/config.toml`` sit at the top of the checkout, beside the
evalcore package, and stay there. At build time they are copied into the wheel under the one name
``evalcore_app`` (``evalcore_app/app.py``, ``evalcore_app/views/...``, ``evalcore_app/dashboard/...``),
which ``evalcore app`` runs when no checkout is found (``evalcore.cli.app.find_app``). The wheel
therefore installs two top-level names, ``evalcore`` and ``evalcore_app``, and no generic ``dashboard``:
the pages' ``import dashboard`` finds ``evalcore_app/dashboard`` because Streamlit puts the script's
folder first on ``sys.path``, as it does in the checkout. evalcore itself never imports any of them.
"""
from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
#: (glob relative to the checkout) -> copied under evalcore_app/ with the same relative path
APP_FILES = ("app.py", "views/*.py", "dashboard/*.py", ".streamlit/config.toml")
APP_PACKAGE = "evalcore_app"


def app_files() -> list[Path]:
    out = []
    for pattern in APP_FILES:
        out += sorted(p for p in ROOT.glob(pattern) if p.is_file())
    return out


class BuildWithApp(build_py):
    def run(self):
        super().run()
        target = Path(self.build_lib) / APP_PACKAGE
        for src in app_files():
            dst = target / src.relative_to(ROOT)
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dst)
        (target / "__init__.py").write_text('"""The evalcore dashboard\'s script and pages (run by `evalcore '
                                            'app`)."""\n')


setup(cmdclass={"build_py": BuildWithApp})
