"""``evalcore app``: start the Streamlit dashboard (needs the ``app`` extra: ``pip install "evalcore[app]"``).

The dashboard (``app.py``, ``views/``, ``dashboard/``) lives in the source
checkout beside the ``evalcore`` package, not inside it (evalcore stays free
of Streamlit); a wheel ships it as the data package ``evalcore_app`` (the
script and pages, copied at build time by setup.py) plus the ``dashboard``
package. The command looks for ``app.py`` in ``--app-dir``, else the current
directory, the checkout evalcore was installed from, then the installed
``evalcore_app``.
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
from pathlib import Path


def register(sub, data: argparse.ArgumentParser) -> None:
    a = sub.add_parser("app", help="start the Streamlit dashboard (needs: pip install \"evalcore[app]\")",
                       description="Start the dashboard on the built-in simulated collection "
                                   "(streamlit run app.py). Extra arguments go to streamlit, e.g. "
                                   "'evalcore app -- --server.port 8502'.")
    a.add_argument("--app-dir", metavar="DIR", help="the checkout holding app.py (default: the current "
                   "directory, then the checkout evalcore was installed from)")
    a.add_argument("--dry-run", action="store_true", help="print the command instead of running it")
    a.add_argument("streamlit_args", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    a.set_defaults(func=run_app)


def _installed_app() -> Path | None:
    """The dashboard a wheel installed (package ``evalcore_app``), found without importing it."""
    spec = importlib.util.find_spec("evalcore_app")
    for loc in (spec.submodule_search_locations or []) if spec else []:
        if (Path(loc) / "app.py").is_file():
            return Path(loc)
    return None


def find_app(app_dir: str | None) -> Path:
    candidates = [Path(app_dir)] if app_dir else [Path.cwd(), Path(__file__).resolve().parents[2]]
    for d in candidates:
        if (d / "app.py").is_file() and (d / "dashboard").is_dir():
            return (d / "app.py").resolve()
    installed = None if app_dir else _installed_app()
    if installed is not None:
        return (installed / "app.py").resolve()
    where = ", ".join(str(d) for d in candidates)
    raise ValueError(f"no dashboard (app.py with dashboard/ beside it) in {where}; install it with "
                     "pip install \"evalcore[app]\" (the wheel ships the dashboard), run 'evalcore app' from a "
                     "source checkout, or pass --app-dir CHECKOUT")


def run_app(args) -> int:
    app = find_app(args.app_dir)
    if importlib.util.find_spec("streamlit") is None:
        raise ValueError("the dashboard needs streamlit and plotly: pip install \"evalcore[app]\" "
                         "(or pip install -r requirements.txt)")
    extra = [x for x in args.streamlit_args if x != "--"]
    cmd = [sys.executable, "-m", "streamlit", "run", str(app), *extra]
    if args.dry_run:
        print(" ".join(cmd))
        return 0
    # one BLAS thread per server process (app.py sets it too, when it runs before numpy is loaded)
    env = {**{v: "1" for v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")}, **os.environ}
    return subprocess.call(cmd, cwd=str(app.parent), env=env)
